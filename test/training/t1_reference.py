#!/usr/bin/env python3
"""Independent numpy reference trainer of T1, the sparse-autoencoder program.

It is the oracle that compiled T1 training runs are compared against: it
shares no code with the compiler, and its backward pass is derived by hand
(no autograd library); --self-check verifies it against finite differences.

Model (x[b, d], W_enc[d, h], b_enc[h], W_dec[h, d], b_dec[d]):

    z     = x @ W_enc + b_enc
    f     = relu(z)
    x_hat = f @ W_dec + b_dec
    r     = x_hat - x
    loss  = mean(r^2) + l1 * mean(|f|)                 (l1 = --l1-coeff, 1e-3)

Backward (relu'(z) = 1 if z > 0 else 0, d|f|/df = sign(f)):

    g_xhat = 2 r / (b d)
    gW_dec = f^T @ g_xhat          gb_dec = sum_b g_xhat
    g_f    = g_xhat @ W_dec^T + l1 sign(f) / (b h)
    g_z    = g_f * (z > 0)
    gW_enc = x^T @ g_z             gb_enc = sum_b g_z

Optional global-norm clipping (--clip-norm C > 0), before either update:
    total = sqrt(sum over params of sum(g^2)); g *= min(1, C / (total + 1e-6))

AdamW (as torch.optim.AdamW; decay applies to every parameter), step t:
    p = p (1 - lr wd); m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2
    denom = sqrt(v) / sqrt(1 - b2^t) + eps; p = p - lr / (1 - b1^t) * m / denom
SGD with momentum (as torch.optim.SGD, dampening 0, no nesterov):
    g = g + wd p; buf = mu buf + g; p = p - lr buf
m, v and buf start at zero.

Data: --data DIR holds x.npy [S, b, d] (a 2-D [b, d] is taken as S = 1),
W_enc.npy, b_enc.npy, W_dec.npy, b_dec.npy. Step t (1-based) uses the batch
x[(t-1) % S]. Inputs are upcast to --dtype (default float64) and all the
arithmetic is done in it.

Output: one line per step on stdout, exactly `step {t} loss {loss:.9g}`, the
loss of the forward pass of step t (before that step's update).

Resuming: --save DIR writes the final parameters (W_enc.npy ...) and the
optimizer state (m_<name>.npy and v_<name>.npy for adamw, mom_<name>.npy for
sgd) as float32; --load DIR --start-step K reads them back, and the run goes
on with step K+1 (batch K % S, bias correction with t = K+1, ...).

Examples:
    t1_reference.py --data /tmp/t1 --steps 50 > ref.log
    t1_reference.py --data /tmp/t1 --steps 25 --save /tmp/ck
    t1_reference.py --data /tmp/t1 --steps 25 --load /tmp/ck --start-step 25
    t1_reference.py --self-check
"""
import argparse
import math
import os
import sys

try:
    import numpy as np
except ImportError:
    sys.exit(f"t1_reference.py: error: numpy is not importable by {sys.executable}; "
             "run this script with a Python that has numpy")

# The atomic .npy writer of the data generator (the example's own script):
# checkpoints are written the same way as the inputs.
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, "examples", "training"))
from t1_data import save_atomic  # noqa: E402

PARAMS = ("W_enc", "b_enc", "W_dec", "b_dec")
STATE = {"adamw": ("m", "v"), "sgd": ("mom",)}
CLIP_EPS = 1e-6


class InputError(Exception):
    """A bad input file or argument: reported as one message, exit 1."""


# ----------------------------------------------------------------------------
# Model: forward and hand-written backward.

def round_bf16(a):
    """A rounded to bfloat16 (nearest, ties to even) through float32, as
    the program rounds an f32 value (weft.convert) and as the runtime
    stores a bf16 GEMM's f32 accumulation; returned in A's dtype."""
    f = np.ascontiguousarray(a, dtype=np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return (u.astype(np.uint32).view(np.float32)).astype(a.dtype)


def bf16_gemm(a, b):
    """--bf16-mixed's GEMM (weftc --precision=bf16-mixed, weight gradients
    reduced in bf16): operands rounded to bf16, the product accumulated in
    the compute dtype, the result rounded to bf16."""
    return round_bf16(round_bf16(a) @ round_bf16(b))


def round_f16(a):
    """A rounded to float16 through float32 (nearest, ties to even), as
    the program rounds an f32 value to f16; returned in A's dtype."""
    return np.asarray(a, dtype=np.float32).astype(np.float16).astype(a.dtype)


def f16_gemm(a, b):
    """--f16-mixed's GEMM (weftc --precision=f16-mixed): bf16_gemm in f16."""
    return round_f16(round_f16(a) @ round_f16(b))


MATMUL = [np.matmul]
# Dynamic loss scaling's scale (--f16-mixed --loss-scale S): the backward
# starts from S instead of 1 and the gradients are divided by S, as the
# program does; a power of two changes nothing but where f16 rounds.
LOSS_SCALE = [1.0]


def forward_backward(params, x, l1):
    """Returns (loss, grads) of the T1 loss on batch X.

    PARAMS and the returned GRADS are dicts name -> array; the loss is a
    0-d array of X's dtype. Every GEMM goes through MATMUL[0]."""
    mm = MATMUL[0]
    W_enc, b_enc, W_dec, b_dec = (params[n] for n in PARAMS)
    b, d = x.shape
    h = W_enc.shape[1]
    dt = x.dtype

    z = mm(x, W_enc) + b_enc
    active = z > 0
    f = np.where(active, z, dt.type(0))
    x_hat = mm(f, W_dec) + b_dec
    r = x_hat - x
    loss = np.mean(r * r) + dt.type(l1) * np.mean(np.abs(f))

    s = dt.type(LOSS_SCALE[0])
    g_xhat = r * dt.type(2.0 / (b * d)) * s
    g_W_dec = mm(f.T, g_xhat)
    g_b_dec = g_xhat.sum(axis=0)
    g_f = mm(g_xhat, W_dec.T) + np.sign(f) * dt.type(l1 / (b * h)) * s
    g_z = np.where(active, g_f, dt.type(0))
    g_W_enc = mm(x.T, g_z)
    g_b_enc = g_z.sum(axis=0)
    grads = {"W_enc": g_W_enc, "b_enc": g_b_enc,
             "W_dec": g_W_dec, "b_dec": g_b_dec}
    grads = {n: g / s for n, g in grads.items()}
    return loss, grads


def loss_only(params, x, l1):
    z = x @ params["W_enc"] + params["b_enc"]
    f = np.maximum(z, 0)
    r = f @ params["W_dec"] + params["b_dec"] - x
    return np.mean(r * r) + l1 * np.mean(np.abs(f))


# ----------------------------------------------------------------------------
# Optimizers.

def clip_grads(grads, clip_norm):
    """Scales GRADS in place to global norm at most CLIP_NORM (0 = off)."""
    if clip_norm <= 0:
        return
    total = math.sqrt(sum(float(np.sum(g.astype(np.float64) ** 2))
                          for g in grads.values()))
    scale = min(1.0, clip_norm / (total + CLIP_EPS))
    if scale < 1.0:
        for name in grads:
            grads[name] = grads[name] * grads[name].dtype.type(scale)


def adamw_step(params, grads, state, t, args):
    lr, b1, b2, eps, wd = (args.lr, args.beta1, args.beta2, args.eps,
                           args.weight_decay)
    bc1 = 1.0 - b1 ** t
    bc2_sqrt = math.sqrt(1.0 - b2 ** t)
    step_size = lr / bc1
    for name in PARAMS:
        p, g = params[name], grads[name]
        T = p.dtype.type
        m, v = state["m"][name], state["v"][name]
        p = p * T(1.0 - lr * wd)
        m = T(b1) * m + T(1.0 - b1) * g
        v = T(b2) * v + T(1.0 - b2) * (g * g)
        denom = np.sqrt(v) / T(bc2_sqrt) + T(eps)
        params[name] = p - T(step_size) * (m / denom)
        state["m"][name], state["v"][name] = m, v


def sgd_step(params, grads, state, t, args):
    del t  # SGD has no step-dependent terms.
    for name in PARAMS:
        p, g = params[name], grads[name]
        T = p.dtype.type
        g = g + T(args.weight_decay) * p
        buf = T(args.momentum) * state["mom"][name] + g
        params[name] = p - T(args.lr) * buf
        state["mom"][name] = buf


# ----------------------------------------------------------------------------
# Files.

def load_npy(directory, name):
    path = os.path.join(directory, name + ".npy")
    if not os.path.isfile(path):
        raise InputError(f"missing input file {path}")
    try:
        with open(path, "rb") as f:
            if f.read(6) != b"\x93NUMPY":
                raise InputError(f"{path} is not a .npy file")
        array = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read {path}: {e}") from e
    if not np.issubdtype(array.dtype, np.floating):
        raise InputError(f"{path}: expected a floating-point array, got dtype "
                         f"{array.dtype}")
    return array


def check_shapes(arrays, where):
    """Checks the T1 parameter shapes against each other; returns (d, h)."""
    W_enc, b_enc, W_dec, b_dec = (arrays[n] for n in PARAMS)
    shapes = ", ".join(f"{n}.npy {list(arrays[n].shape)}" for n in PARAMS)
    if W_enc.ndim != 2:
        raise InputError(f"{where}/W_enc.npy: expected 2 dimensions [d, h], "
                         f"got shape {list(W_enc.shape)}")
    d, h = W_enc.shape
    expected = {"b_enc": (h,), "W_dec": (h, d), "b_dec": (d,)}
    for name, shape in expected.items():
        if arrays[name].shape != shape:
            raise InputError(
                f"{where}/{name}.npy: expected shape {list(shape)} (from "
                f"W_enc.npy [d={d}, h={h}]), got {list(arrays[name].shape)}; "
                f"shapes: {shapes}")
    return d, h


def load_data(directory):
    """Returns (x[S, b, d], params) read from DIRECTORY, shapes checked."""
    if not os.path.isdir(directory):
        raise InputError(f"data directory {directory} does not exist")
    x = load_npy(directory, "x")
    params = {n: load_npy(directory, n) for n in PARAMS}
    d, h = check_shapes(params, directory)
    if x.ndim == 2:
        x = x[np.newaxis]
    if x.ndim != 3 or x.shape[2] != d or x.shape[0] < 1 or x.shape[1] < 1:
        raise InputError(
            f"{directory}/x.npy: expected shape [S, b, d={d}] (d from "
            f"W_enc.npy {list(params['W_enc'].shape)}), got {list(x.shape)}")
    return x, params


def load_checkpoint(directory, optimizer, d, h):
    """Returns (params, state) saved by --save into DIRECTORY."""
    if not os.path.isdir(directory):
        raise InputError(f"--load directory {directory} does not exist")
    params = {n: load_npy(directory, n) for n in PARAMS}
    if check_shapes(params, directory) != (d, h):
        raise InputError(
            f"{directory}: parameters are for d={params['W_enc'].shape[0]}, "
            f"h={params['W_enc'].shape[1]} but the data have d={d}, h={h}")
    state = {}
    for kind in STATE[optimizer]:
        state[kind] = {}
        for name in PARAMS:
            array = load_npy(directory, f"{kind}_{name}")
            if array.shape != params[name].shape:
                raise InputError(
                    f"{directory}/{kind}_{name}.npy: expected shape "
                    f"{list(params[name].shape)} (that of {name}.npy), got "
                    f"{list(array.shape)}")
            state[kind][name] = array
    return params, state


def save_checkpoint(directory, params, state):
    os.makedirs(directory, exist_ok=True)
    for name in PARAMS:
        save_atomic(directory, name, params[name])
    for kind, tensors in state.items():
        for name in PARAMS:
            save_atomic(directory, f"{kind}_{name}", tensors[name])


# ----------------------------------------------------------------------------
# Gradient self-check.

def self_check(l1_coeffs, seed=1234):
    """Compares forward_backward with central differences in float64 on a
    tiny problem (b=4, d=3, h=5). Returns a list of failure messages."""
    b, d, h = 4, 3, 5
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((b, d))
    params = {"W_enc": rng.standard_normal((d, h)),
              "b_enc": rng.standard_normal(h),
              "W_dec": rng.standard_normal((h, d)),
              "b_dec": rng.standard_normal(d)}
    # Keep every pre-activation at least MARGIN away from the relu kink so
    # that no finite-difference perturbation (STEP << MARGIN) crosses it: the
    # loss is then smooth (piecewise quadratic) around the point. Redraw
    # b_enc until that holds and both relu branches are exercised.
    margin = 0.05
    for _ in range(1000):
        z = x @ params["W_enc"] + params["b_enc"]
        if np.abs(z).min() >= margin and (z > 0).any() and (z < 0).any():
            break
        params["b_enc"] = rng.standard_normal(h)
    else:
        return ["could not draw a self-check problem away from relu kinks"]

    step = 1e-5
    failures = []
    for l1 in l1_coeffs:
        _, grads = forward_backward(params, x, l1)
        for name in PARAMS:
            numeric = np.zeros_like(params[name])
            for index in np.ndindex(params[name].shape):
                original = params[name][index]
                params[name][index] = original + step
                plus = loss_only(params, x, l1)
                params[name][index] = original - step
                minus = loss_only(params, x, l1)
                params[name][index] = original
                numeric[index] = (plus - minus) / (2 * step)
            error = np.abs(grads[name] - numeric).max()
            scale = max(np.abs(numeric).max(), 1e-30)
            rel = error / scale
            print(f"  l1={l1:g} {name:6s} max|analytic - numeric| = "
                  f"{error:.3e}, relative {rel:.3e}")
            if not rel <= 1e-6:
                failures.append(f"gradient of {name} (l1={l1:g}): relative "
                                f"error {rel:.3e} > 1e-6")
    return failures


# ----------------------------------------------------------------------------

def non_negative_int(text):
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Independent numpy reference trainer of T1 (sparse "
                    "autoencoder, hand-written backward, AdamW or SGD). "
                    "Prints `step T loss L` per step.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--data", metavar="DIR",
                        help="directory with x.npy, W_enc.npy, b_enc.npy, "
                             "W_dec.npy, b_dec.npy (required unless "
                             "--self-check)")
    parser.add_argument("--steps", type=non_negative_int, default=50,
                        help="number of steps to run")
    parser.add_argument("--optimizer", choices=("adamw", "sgd"),
                        default="adamw")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--beta1", type=float, default=0.9, help="AdamW beta1")
    parser.add_argument("--beta2", type=float, default=0.999,
                        help="AdamW beta2")
    parser.add_argument("--eps", type=float, default=1e-8, help="AdamW eps")
    parser.add_argument("--weight-decay", type=float, default=None,
                        help="weight decay (default: 0.01 for adamw, 0 for "
                             "sgd)")
    parser.add_argument("--momentum", type=float, default=0.9,
                        help="SGD momentum")
    parser.add_argument("--clip-norm", type=float, default=0.0,
                        help="global gradient-norm clipping threshold; 0 = off")
    parser.add_argument("--l1-coeff", type=float, default=1e-3,
                        help="coefficient of the mean |f| term of the loss")
    parser.add_argument("--dtype", choices=("float32", "float64"),
                        default="float64", help="compute dtype")
    parser.add_argument("--bf16-mixed", action="store_true",
                        help="round every GEMM's operands and result to "
                             "bf16, as weftc --precision=bf16-mixed does")
    parser.add_argument("--f16-mixed", action="store_true",
                        help="round every GEMM's operands and result to "
                             "f16, as weftc --precision=f16-mixed does")
    parser.add_argument("--loss-scale", type=float, default=1.0,
                        help="a fixed loss scale (the backward runs on S "
                             "times the gradients; use a power of two)")
    parser.add_argument("--save", metavar="DIR",
                        help="write the final parameters and optimizer state "
                             "here (float32)")
    parser.add_argument("--load", metavar="DIR",
                        help="resume from parameters and optimizer state "
                             "written by --save (needs --start-step)")
    parser.add_argument("--micro-batches", type=int, default=1, metavar="K",
                        help="average the loss and gradients over K batches "
                             "per step (gradient accumulation): step t uses "
                             "batches (t-1)*K .. (t-1)*K+K-1, mod S")
    parser.add_argument("--start-step", type=non_negative_int, default=0,
                        metavar="K",
                        help="number of steps already done; the first step "
                             "run is K+1")
    parser.add_argument("--self-check", action="store_true",
                        help="verify the hand-written gradients against "
                             "finite differences, then exit")
    args = parser.parse_args(argv)
    if args.weight_decay is None:
        args.weight_decay = 0.01 if args.optimizer == "adamw" else 0.0
    if args.self_check:
        return args
    if args.data is None:
        parser.error("--data DIR is required (unless --self-check)")
    if args.start_step > 0 and args.load is None:
        parser.error("--start-step K > 0 needs --load DIR (the state after "
                     "K steps)")
    if args.micro_batches < 1:
        parser.error("--micro-batches must be >= 1")
    if args.lr < 0 or args.eps < 0 or args.clip_norm < 0:
        parser.error("--lr, --eps and --clip-norm must be >= 0")
    if not (0 <= args.beta1 < 1 and 0 <= args.beta2 < 1):
        parser.error("--beta1 and --beta2 must be in [0, 1)")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.self_check:
        failures = self_check(sorted({args.l1_coeff, 0.5}))
        if failures:
            for message in failures:
                print(f"t1_reference.py: self-check FAILED: {message}",
                      file=sys.stderr)
            return 1
        print("gradient self-check passed")
        return 0

    dtype = np.dtype(args.dtype)
    if args.bf16_mixed:
        MATMUL[0] = bf16_gemm
    if args.f16_mixed:
        MATMUL[0] = f16_gemm
    LOSS_SCALE[0] = args.loss_scale
    try:
        x, params = load_data(args.data)
        d, h = params["W_enc"].shape
        if args.load is not None:
            params, state = load_checkpoint(args.load, args.optimizer, d, h)
        else:
            state = {kind: {n: np.zeros_like(params[n]) for n in PARAMS}
                     for kind in STATE[args.optimizer]}
    except InputError as e:
        print(f"t1_reference.py: error: {e}", file=sys.stderr)
        return 1

    x = x.astype(dtype)
    params = {n: np.ascontiguousarray(p, dtype=dtype) for n, p in params.items()}
    state = {kind: {n: np.ascontiguousarray(a, dtype=dtype)
                    for n, a in tensors.items()}
             for kind, tensors in state.items()}
    update = adamw_step if args.optimizer == "adamw" else sgd_step

    num_batches = x.shape[0]
    k = args.micro_batches
    for t in range(args.start_step + 1, args.start_step + args.steps + 1):
        # Gradient accumulation: the mean loss and gradients over micro-
        # batches (t-1)*K .. (t-1)*K + K-1 (mod S).
        loss, grads = 0.0, None
        for j in range(k):
            lj, gj = forward_backward(
                params, x[((t - 1) * k + j) % num_batches], args.l1_coeff)
            loss += lj / k
            grads = ({n: g / k for n, g in gj.items()} if grads is None else
                     {n: grads[n] + gj[n] / k for n in grads})
        print(f"step {t} loss {float(loss):.9g}", flush=True)
        clip_grads(grads, args.clip_norm)
        update(params, grads, state, t, args)

    if args.save is not None:
        try:
            save_checkpoint(args.save, params, state)
        except OSError as e:
            print(f"t1_reference.py: error: cannot save to {args.save}: {e}",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
