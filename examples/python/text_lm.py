"""A byte-level Llama-style language model trained on real text.

The corpus: the license texts Debian's base-files package ships in
/usr/share/common-licenses (every Debian system has them: GPL-3, the
Apache, Artistic, BSD, GFDL, LGPL, MPL and CC0 texts, about 270 KB),
concatenated in name order. Bytes are the tokens (vocabulary 256), written
as a flat uint16 file like nanoGPT's train.bin; the training executable
reads it with --tokens and draws every data-parallel rank its own windows
per step (docs/training.md, "Batches from a token file").

The model (weft.nn): 2 blocks, d=128, 4 heads of 32 with rotary
positions, RMSNorm, SwiGLU MLP (f=352), untied output; a tensor-parallel
plan in PyTorch's vocabulary over `model` with sequence parallelism, the
batch over `data` (mesh data=2, model=2, 4 ranks). Parameters start as
small normal draws written to .npy files (norm gains at 1).

  PYTHONPATH=python WEFT_BIN=build/bin python3 examples/python/text_lm.py \\
      --work /tmp/text_lm --steps 300

writes /tmp/text_lm/{corpus.bin, init/*.npy, text_lm.mlir, text_lm}, runs
`mpirun -np 4 text_lm --tokens corpus.bin --steps 300 ...` and prints the
loss curve (and plots it to loss.svg).
--dry-run prints the commands without compiling or running.
"""

import argparse
import glob
import os
import shlex
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import weft  # noqa: E402
from weft import P  # noqa: E402
from weft.parallel import (ColwiseParallel, PrepareModuleInput,  # noqa: E402
                           Replicate, RowwiseParallel, SequenceParallel,
                           Shard, parallelize_module)

CORPUS = "/usr/share/common-licenses"
B, T, D, H, F, V, LAYERS = 8, 64, 128, 4, 352, 256, 2


def write_tokens(out, corpus=CORPUS):
    """Bytes of every regular file under `corpus` (name order) as uint16
    tokens; returns the token count."""
    import numpy as np
    files = sorted(f for f in glob.glob(os.path.join(corpus, "*"))
                   if os.path.isfile(f) and not os.path.islink(f))
    if not files:
        raise SystemExit("no text files under %s (Debian's base-files "
                         "package ships them)" % corpus)
    data = b"".join(open(f, "rb").read() for f in files)
    np.frombuffer(data, np.uint8).astype("<u2").tofile(out)
    return len(data)


def model_and_plan(mesh):
    model = weft.nn.Transformer(V, D, LAYERS, H, T, hidden_dim=F,
                                norm="rms", mlp="swiglu", pos="rotary")
    parallelize_module(model, mesh, {
        "tok_embeddings": RowwiseParallel(input_layouts=Replicate(),
                                          output_layouts=Shard(1)),
        "layers.*.attention_norm": SequenceParallel(),
        "layers.*.attention": PrepareModuleInput(
            input_layouts=Shard(1), desired_input_layouts=Replicate()),
        "layers.*.attention.wq": ColwiseParallel(),
        "layers.*.attention.wk": ColwiseParallel(),
        "layers.*.attention.wv": ColwiseParallel(),
        "layers.*.attention.wo": RowwiseParallel(output_layouts=Shard(1)),
        "layers.*.ffn_norm": SequenceParallel(),
        "layers.*.feed_forward": PrepareModuleInput(
            input_layouts=Shard(1), desired_input_layouts=Replicate()),
        "layers.*.feed_forward.w1": ColwiseParallel(),
        "layers.*.feed_forward.w3": ColwiseParallel(),
        "layers.*.feed_forward.w2": RowwiseParallel(output_layouts=Shard(1)),
        "norm": SequenceParallel(),
        "output": ColwiseParallel(input_layouts=Shard(1)),
    }, tp_axis="model", dp_axis="data")
    return model


def build(mesh=None):
    mesh = mesh or weft.Mesh({"data": 2, "model": 2})
    model = model_and_plan(mesh)

    def text_lm(tokens, labels):
        return weft.cross_entropy(model(tokens), labels)

    program = weft.trace(
        text_lm, mesh,
        [weft.Input("tokens", (B, T), "i32", P("data", None)),
         weft.Input("labels", (B, T), "i32", P("data", None))],
        out_names="loss", params=model)
    return program, model


def write_init(model, out_dir, seed=0):
    """Normal(0, 0.02) weights, output scaled by 1/sqrt(2 layers), norm
    gains 1 (GPT-2's initialization); returns --input arguments."""
    import numpy as np
    rng = np.random.default_rng(seed)
    os.makedirs(out_dir, exist_ok=True)
    args = []
    for name, p in model.named_parameters():
        if name.endswith("norm.weight"):
            value = np.ones(p.shape, np.float32)
        else:
            std = 0.02 / (2 * LAYERS) ** 0.5 if name.endswith(
                ("wo.weight", "w2.weight")) else 0.02
            value = rng.normal(0, std, p.shape).astype(np.float32)
        path = os.path.join(out_dir, name + ".npy")
        np.save(path, value)
        args += ["--input", "%s=%s" % (name, path)]
    return args


def show(result, svg):
    for step, loss in zip(result.steps, result.losses):
        bar = "#" * max(0, int(loss * 10))
        print("%5d  %.4f  %s" % (step, loss, bar))
    result.plot(svg, title="text_lm on %s" % CORPUS,
                ylabel="loss (nats/byte)")
    print("wrote", svg)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", default="/tmp/text_lm")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--corpus", default=CORPUS)
    parser.add_argument("--np", type=int, default=4)
    parser.add_argument("--dry-run", action="store_true",
                        help="print the commands only")
    parser.add_argument("--mlir", action="store_true",
                        help="print the program and stop")
    args = parser.parse_args()
    program, model = build()
    if args.mlir:
        print(program.mlir, end="")
        return
    os.makedirs(args.work, exist_ok=True)
    tokens = os.path.join(args.work, "corpus.bin")
    exe = os.path.join(args.work, "text_lm")
    n = write_tokens(tokens, args.corpus)
    print("corpus: %d bytes from %s -> %s" % (n, args.corpus, tokens))
    inputs = write_init(model, os.path.join(args.work, "init"))
    options = ["--token-dtype", "u16", "--lr-schedule", "cosine",
               "--warmup-steps", "20"]
    run = (["mpirun", "-np", str(args.np), "--oversubscribe", exe,
            "--tokens", tokens, "--steps", str(args.steps), "--lr",
            repr(args.lr)] + options + inputs)
    if args.dry_run:
        print("weftc %s.mlir --train=adamw -o %s" % (exe, exe))
        print(" ".join(shlex.quote(a) for a in run))
        return
    print("compiling", exe)
    executable = program.build(exe, train="adamw", lr=args.lr, ranks=args.np)
    # weft.Executable.train: mpirun, a progress bar, the loss curve back.
    init = dict(a.split("=", 1) for a in inputs if a != "--input")
    result = executable.train(args.steps, inputs=init, tokens=tokens,
                              lr=args.lr, args=options)
    show(result, os.path.join(args.work, "loss.svg"))

if __name__ == "__main__":
    main()
