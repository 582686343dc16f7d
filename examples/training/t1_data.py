#!/usr/bin/env python3
"""Writes the inputs of the T1 training example (a sparse autoencoder).

T1 trains a one-layer sparse autoencoder:

    f     = relu(x @ W_enc + b_enc)          x[b, d], W_enc[d, h], b_enc[h]
    x_hat = f @ W_dec + b_dec                W_dec[h, d], b_dec[d]
    loss  = mean((x_hat - x)^2) + 1e-3 * mean(|f|)

This script writes, into --out DIR, float32 C-order .npy files:

    x.npy      [S, b, d]  S batches; training step t (1-based) uses x[(t-1) % S]
    W_enc.npy  [d, h]     N(0, 1) / sqrt(d)
    b_enc.npy  [h]        zeros
    W_dec.npy  [h, d]     N(0, 1) / sqrt(h)
    b_dec.npy  [d]        zeros

The data are something a sparse autoencoder can learn: every row of x is a
sparse non-negative combination of a fixed random dictionary of --atoms unit
vectors in R^d (each code entry is nonzero with probability --density, with a
value uniform in [0, 1)), plus gaussian noise of standard deviation --noise.
Everything is drawn from numpy's default_rng(--seed), so the files are a
deterministic function of the arguments.

Files are written atomically (a temporary file in DIR, then os.replace), so a
reader never sees a half-written file.

Example:
    t1_data.py --out /tmp/t1                      # full size 2048 x 256 x 2048
    t1_data.py --out /tmp/t1s --b 256 --h 512     # a smaller problem for tests
"""
import argparse
import os
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    sys.exit(f"t1_data.py: error: numpy is not importable by {sys.executable}; "
             "run this script with a Python that has numpy")


def _umask():
    """The process umask (os.umask can only be read by setting it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def save_atomic(directory, name, array, dtype=np.float32):
    """Writes ARRAY as DTYPE (float32 by default) C-order DIRECTORY/NAME.npy,
    atomically."""
    array = np.ascontiguousarray(array, dtype=dtype)
    final = os.path.join(directory, name + ".npy")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + name + ".",
                               suffix=".npy.tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            np.save(f, array, allow_pickle=False)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600 files
        os.replace(tmp, final)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_all(prog, directory, arrays):
    """Creates DIRECTORY and writes every NAME -> array of ARRAYS into it
    atomically (int32 arrays as int32, the others as float32). Returns the
    exit status, with a message from PROG on failure."""
    try:
        os.makedirs(directory, exist_ok=True)
        for name, array in arrays.items():
            save_atomic(directory, name, array,
                        np.int32 if array.dtype == np.int32 else np.float32)
    except OSError as e:
        print(f"{prog}: error: cannot write into {directory}: {e}",
              file=sys.stderr)
        return 1
    return 0


def generate(seed, batches, b, d, h, atoms, density, noise):
    """Returns the dict name -> float32 array of the T1 inputs."""
    rng = np.random.default_rng(seed)
    dictionary = rng.standard_normal((atoms, d))
    dictionary /= np.linalg.norm(dictionary, axis=1, keepdims=True)
    active = rng.random((batches, b, atoms)) < density
    codes = np.where(active, rng.random((batches, b, atoms)), 0.0)
    x = codes @ dictionary + noise * rng.standard_normal((batches, b, d))
    return {
        "x": x.astype(np.float32),
        "W_enc": (rng.standard_normal((d, h)) / np.sqrt(d)).astype(np.float32),
        "b_enc": np.zeros(h, dtype=np.float32),
        "W_dec": (rng.standard_normal((h, d)) / np.sqrt(h)).astype(np.float32),
        "b_dec": np.zeros(d, dtype=np.float32),
    }


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Write the x/W_enc/b_enc/W_dec/b_dec .npy inputs of the "
                    "T1 sparse-autoencoder training example.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output directory (created if missing)")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--batches", type=positive_int, default=4, metavar="S",
                        help="number of batches S (leading dimension of x)")
    parser.add_argument("--b", type=positive_int, default=2048,
                        help="batch size")
    parser.add_argument("--d", type=positive_int, default=256,
                        help="input (model) dimension")
    parser.add_argument("--h", type=positive_int, default=2048,
                        help="hidden (dictionary) dimension")
    parser.add_argument("--atoms", type=positive_int, default=64,
                        help="number of atoms of the generating dictionary")
    parser.add_argument("--density", type=float, default=0.1,
                        help="probability that a code entry is nonzero")
    parser.add_argument("--noise", type=float, default=0.01,
                        help="standard deviation of the additive noise")
    args = parser.parse_args(argv)

    if not 0.0 < args.density <= 1.0:
        parser.error(f"--density must be in (0, 1], got {args.density}")
    if args.noise < 0.0:
        parser.error(f"--noise must be >= 0, got {args.noise}")
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")

    arrays = generate(args.seed, args.batches, args.b, args.d, args.h,
                      args.atoms, args.density, args.noise)
    if write_all("t1_data.py", args.out, arrays):
        return 1
    shapes = ", ".join(f"{n}{list(a.shape)}" for n, a in arrays.items())
    print(f"wrote {shapes} to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
