#!/usr/bin/env python3
"""Prepares the end-to-end GPU check of the examples for a machine that has
a GPU but no MLIR (scripts/run-gpu-tests.sh runs it there).

  scripts/gpu/bundle.py --bin build/bin --out DIR [EXAMPLE.mlir ...]

For each training example of TRAINING (examples/training, built with the
flags of its first line `// weftc: ...` plus --unsharded):
  DIR/programs/train_NAME.cpp   the one-device training step
  DIR/train_NAME/train.json     how check.py makes its data and its numpy
                                reference (scripts of the repository)

For each example (default: examples/canonical/*.mlir, examples/ops/*.mlir):
  DIR/programs/NAME.cpp     `weftc --unsharded --emit=cpp`: the one-device
                            program (one GPU runs one rank)
  DIR/NAME/graph.json       the global graph (weft-translate --weft-to-json), inputs and
                            outputs named as the executable names them
scripts/gpu/check.py makes the inputs and numpy's reference from the graph
on the GPU machine (test/e2e/Inputs/e2e.py, test/numpy/weft_numpy.py), so
the bundle stays small and the references never come from the code under
test.
"""
import argparse
import glob
import json
import os
import re
import shutil
import sys

sys.dont_write_bytecode = True
root = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "test", "e2e", "Inputs"))
import e2e  # noqa: E402


# Training examples: their data generator, independent numpy trainer and
# parameter names (test/training/t1-sae.test runs the same on CPU ranks).
TRAINING = {
    "t1_sae": {"data": "examples/training/t1_data.py",
               "reference": "test/training/t1_reference.py",
               "names": "W_enc,b_enc,W_dec,b_dec"},
    # Per-step dropout: the mask keyed by the step (weft.random's offset).
    "dropout_mlp": {"data": "test/training/dropout_reference.py",
                    "reference": "test/training/dropout_reference.py",
                    "names": "W1,W2"},
    # FSDP (fsdp-mlp.test): on one GPU the unsharded step, whose SGD update
    # runs in place (maps written into a dying operand's buffer).
    "fsdp_mlp": {"data": "test/training/fsdp_reference.py",
                 "reference": "test/training/fsdp_reference.py",
                 "names": "W1,W2,W3,W4"},
    # T2's numpy reference evaluates one step's loss from given parameters
    # (t2-lm.test): step 1's loss is checked against it, the 20 steps'
    # losses and final parameters cuda against cpu.
    "t2_lm": {"data": "examples/training/t2_data.py",
              "reference": "test/training/t2_reference.py",
              "reference_kind": "step1",
              "deterministic": False,
              "names": "E,P,Wout,Wq_0,Wk_0,Wv_0,Wo_0,W1_0,W2_0,"
                       "Wq_1,Wk_1,Wv_1,Wo_1,W1_1,W2_1"},
    # The Llama-style LM (llama-lm.test): step 1's loss against numpy.
    # T2 and Llama sum their embedding gradient with atomicAdd on CUDA
    # (scatter_add), in no fixed order: two cuda runs differ by rounding,
    # so --cuda-graph is checked against op by op to the run's tolerance,
    # not bit for bit ("deterministic": False).
    "llama_lm": {"data": "examples/training/llama_data.py",
                 "reference": "test/training/llama_reference.py",
                 "reference_kind": "step1",
                 "deterministic": False,
                 "names": "E,gf,Wout," + ",".join(
                     "%s_%d" % (w, l) for l in range(2) for w in
                     ("g1", "wq", "wk", "wv", "wo", "g2", "w1", "w3", "w2"))},
}
# Precision variants (docs/precision.md): the example above built with the
# extra flags. Against the f32 numpy reference and the cpu backend within
# `rtol` (losses) and `param_tol` (parameters): bf16 rounds every GEMM's
# operands and result, and the backends' bf16 GEMMs accumulate in
# different orders.
VARIANTS = {
    "t2_lm_bf16": ("t2_lm", "--precision=bf16-mixed",
                   {"rtol": 2e-2, "param_tol": 5e-2}),
    "llama_lm_bf16": ("llama_lm", "--precision=bf16-mixed",
                      {"rtol": 2e-2, "param_tol": 5e-2}),
    # Dynamic loss scaling: --cuda-graph refuses it (docs/runtime.md).
    "t1_sae_f16": ("t1_sae", "--precision=f16-mixed",
                   {"rtol": 2e-2, "param_tol": 5e-2, "graph": False}),
}


def bundle_training(weftc, out):
    cases = [(name, name, "", spec) for name, spec in TRAINING.items()]
    cases += [(name, base, extra, dict(TRAINING[base], **tols))
              for name, (base, extra, tols) in VARIANTS.items()]
    for name, base, extra, spec in sorted(cases):
        ex = os.path.join(root, "examples", "training", base + ".mlir")
        with open(ex) as f:
            m = re.match(r"^// weftc: (.*)$", f.readline().rstrip("\n"))
        if not m:
            sys.exit("bundle: %s: no '// weftc: FLAGS' first line" % ex)
        flags = (m.group(1) + " " + extra).strip()
        work = os.path.join(out, "train_" + name)
        os.makedirs(work, exist_ok=True)
        log = []
        e2e.run([weftc] + flags.split() +
                [ex, "--unsharded", "--emit=cpp", "-o",
                 os.path.join(out, "programs", "train_" + name + ".cpp")],
                "weftc --emit=cpp", log)
        with open(os.path.join(work, "train.json"), "w") as f:
            json.dump(dict(spec, flags=flags), f)
        print("bundle: train_%s" % name)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("examples", nargs="*")
    p.add_argument("--unfused", default="",
                   help="comma-separated bundled names (p9, train_t1_sae) "
                        "to bundle again as NAME_nofuse built with "
                        "--fuse=false, for a same-machine A/B of fusion")
    a = p.parse_args(argv[1:])
    examples = a.examples or sorted(
        glob.glob(os.path.join(root, "examples", "canonical", "*.mlir")) +
        glob.glob(os.path.join(root, "examples", "ops", "*.mlir")))
    os.makedirs(os.path.join(a.out, "programs"), exist_ok=True)
    weftc = os.path.join(a.bin, "weftc")
    if not a.examples:
        bundle_training(weftc, a.out)
    for ex in examples:
        name = os.path.splitext(os.path.basename(ex))[0]
        work = os.path.join(a.out, name)
        os.makedirs(work, exist_ok=True)
        log = []
        fn = e2e.export(a.bin, ex, os.path.join(work, "source.json"), log)
        e2e.run([weftc, ex, "--emit=global", "-o",
                 os.path.join(work, "global.mlir")], "weftc", log)
        named = e2e.export(a.bin, os.path.join(work, "global.mlir"),
                           os.path.join(work, "global.json"), log)
        for mine, theirs in zip(fn["inputs"] + fn["outputs"],
                                named["inputs"] + named["outputs"]):
            mine["name"] = theirs["name"]
        # The input scale the example's lit test uses (docs/testing.md).
        fn["input_scale"] = 1.0
        for t in glob.glob(os.path.join(root, "test", "e2e", "*-%s.test" % name)):
            m = re.search(r"--input-scale ([0-9.e-]+)", open(t).read())
            if m:
                fn["input_scale"] = float(m.group(1))
        with open(os.path.join(work, "graph.json"), "w") as f:
            json.dump(fn, f)
        e2e.run([weftc, ex, "--unsharded", "--emit=cpp", "-o",
                 os.path.join(a.out, "programs", name + ".cpp")],
                "weftc --emit=cpp", log)
        for f in ("source.json", "global.mlir", "global.json"):
            os.remove(os.path.join(work, f))
        print("bundle: %s" % name)
    for name in filter(None, a.unfused.split(",")):
        bundle_unfused(weftc, a.out, name)
    return 0


def bundle_unfused(weftc, out, name):
    """NAME_nofuse: NAME's data directory and its program built with
    --fuse=false (the same flags otherwise)."""
    if name.startswith("train_"):
        ex = os.path.join(root, "examples", "training", name[6:] + ".mlir")
        with open(ex) as f:
            flags = re.match(r"^// weftc: (.*)$", f.readline()).group(1).split()
    else:
        found = (glob.glob(os.path.join(root, "examples", "*", name + ".mlir")))
        if not found:
            sys.exit("bundle: --unfused: no example named %s" % name)
        ex, flags = found[0], []
    shutil.copytree(os.path.join(out, name), os.path.join(out, name + "_nofuse"),
                    dirs_exist_ok=True)
    e2e.run([weftc] + flags + [ex, "--unsharded", "--fuse=false",
                               "--emit=cpp", "-o",
                               os.path.join(out, "programs",
                                            name + "_nofuse.cpp")],
            "weftc --fuse=false --emit=cpp", [])
    print("bundle: %s_nofuse" % name)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
