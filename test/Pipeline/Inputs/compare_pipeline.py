#!/usr/bin/env python3
"""weftc and weft-opt --weft-pipeline produce the same IR (issue 29).

For every example program (examples/*/*.mlir, with the weftc flags of its
first line `// weftc: FLAGS` where it has one), the extra flag sets below
and a local-view input (test/weftc/Inputs/mlp-local.mlir), runs

  weftc EX FLAGS --emit=input            the program the pipeline starts from
                                         (with the source's locations)
  weftc EX FLAGS --emit=STAGE            for STAGE in global, local
  weft-opt INPUT --weft-pipeline="stop-after=STAGE OPTIONS"

with OPTIONS the pipeline options that FLAGS translate to, and diffs the
two outputs; with --comm-report=json also the two reports. Prints one line
per comparison, `... SAME` or `... DIFFER` (with the diff's head), and a
summary; exits 1 if any differs or any command fails.

  compare_pipeline.py BIN_DIR SRC_DIR WORK_DIR [--only TEXT] [--opt-extra OPTS]
"""
import argparse
import difflib
import glob
import os
import re
import shlex
import subprocess
import sys

# weftc flags with a value, and the pipeline option each becomes.
VALUE_FLAGS = {
    "--lr": "lr", "--beta1": "beta1", "--beta2": "beta2", "--eps": "eps",
    "--weight-decay": "weight-decay", "--momentum": "momentum",
    "--clip-norm": "clip-norm", "--micro-batches": "micro-batches",
    "--zero1-axis": "zero1-axis", "--mesh": "mesh", "--search": "search",
    "--machine-profile": "machine-profile",
    "--memory-budget": "memory-budget", "--combine-bytes": "combine-bytes",
    "--train": "training",
}
BOOL_FLAGS = {"--remat-gathers": "remat-gathers", "--schedule": "schedule",
              "--fuse": "fuse", "--unsharded": "unsharded"}

# Flag sets beyond the examples' own, so every option of the pipeline is
# compared at least once: (example, flags).
EXTRA = [
    ("canonical/p3.mlir", "--mesh data=1,model=2"),
    ("canonical/p1.mlir", "--unsharded"),
    ("canonical/p9.mlir", "--search=greedy --combine-bytes=0 --schedule=false"),
    ("canonical/p11.mlir", "--fuse=false --remat-gathers"),
    ("auto/mlp4.mlir", "--memory-budget=8000000"),
    ("training/t1_sae.mlir", "--grad --micro-batches 2"),
    # The optimizer's options on T1 (its search takes a second; T2's takes
    # ten, and T2's own flags are compared above).
    ("training/t1_sae.mlir",
     "--train=adamw --zero1-axis data --clip-norm 1 --weight-decay 0.1 "
     "--beta1 0.8 --beta2 0.99 --eps 1e-6"),
    ("training/dropout_mlp.mlir", "--train=sgd --momentum 0.9 --lr 0.05"),
]

# Examples left out, to keep CI short: each costs two whole-step searches and
# adds no pipeline option. training/t2_lm_layers.mlir is T2 with a layer
# function, and test/training/t2-layers.test checks that weftc compiles it
# to T2's generated C++ and comm report (T2 itself is compared here).
# training/llama_lm.mlir has T2's flags (--train=adamw --lr 3e-3), so the
# same pipeline options; test/training/llama-lm*.test compile and train it.
SKIP = {"training/t2_lm_layers.mlir", "training/llama_lm.mlir"}


def translate(flags):
    """weftc flags -> weft-pipeline options (the mapping of docs/weftc.md)."""
    words = shlex.split(flags)
    opts = {}
    i = 0
    while i < len(words):
        w = words[i]
        name, eq, value = w.partition("=")
        if name in VALUE_FLAGS:
            if not eq:
                i += 1
                value = words[i]
            opts[VALUE_FLAGS[name]] = value
        elif name in BOOL_FLAGS:
            opts[BOOL_FLAGS[name]] = value if eq else "true"
        elif name == "--grad":
            opts["training"] = "grad"
        elif name == "--comm-report":
            opts["comm-report"] = value if eq and value else "text"
        else:
            sys.exit("compare_pipeline.py: no pipeline option for weftc "
                     "flag '%s'" % w)
        i += 1
    # weftc's rule: no schedule under a memory budget unless asked for.
    if int(opts.get("memory-budget", "0")) and "schedule" not in opts:
        opts["schedule"] = "false"
    return " ".join("%s=%s" % (k, shlex.quote(v) if " " in v else v)
                    for k, v in opts.items())


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode != 0:
        raise RuntimeError("command failed (exit %d): %s\n%s" %
                           (p.returncode, " ".join(map(shlex.quote, cmd)),
                            p.stderr[-3000:]))
    return p.stdout


def same(what, a, b):
    # weft-opt ends its output with one more newline than weftc.
    a, b = a.rstrip("\n"), b.rstrip("\n")
    if a == b:
        print("%s SAME" % what)
        return True
    diff = difflib.unified_diff(a.splitlines(), b.splitlines(), "weftc",
                                "weft-opt", lineterm="", n=1)
    print("%s DIFFER\n%s" % (what, "\n".join(list(diff)[:20])))
    return False


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bin_dir")
    parser.add_argument("src")
    parser.add_argument("work")
    parser.add_argument("--only", help="compare only the programs whose "
                        "label contains this")
    parser.add_argument("--opt-extra", default="",
                        help="pipeline options given to weft-opt only (the "
                        "test shows that a difference is caught)")
    args = parser.parse_args(argv[1:])
    bin_dir, src, work = args.bin_dir, args.src, args.work
    weftc = os.path.join(bin_dir, "weftc")
    weft_opt = os.path.join(bin_dir, "weft-opt")
    os.makedirs(work, exist_ok=True)
    cases = []
    for path in sorted(glob.glob(os.path.join(src, "examples", "*", "*.mlir"))):
        if os.path.relpath(path, os.path.join(src, "examples")) in SKIP:
            continue
        with open(path) as f:
            m = re.match(r"^// weftc: (.*)$", f.readline().rstrip("\n"))
        cases.append((path, m.group(1) if m else ""))
    for rel, flags in EXTRA:
        cases.append((os.path.join(src, "examples", rel), flags))
    # A local view (input-view=local): the pipeline starts at the
    # collective passes.
    cases.append((os.path.join(src, "test", "weftc", "Inputs",
                               "mlp-local.mlir"), ""))
    ok = True
    compared = 0
    for n, (path, flags) in enumerate(cases):
        name = "%s/%s" % (os.path.basename(os.path.dirname(path)),
                          os.path.basename(path))
        label = "%s [%s]" % (name, flags) if flags else name
        if args.only and args.only not in label:
            continue
        compared += 1
        options = translate(flags)
        with open(path) as f:
            local = "weft.global_type" in f.read()
        if local:
            options = ("input-view=local " + options).strip()
        base = [weftc, path] + shlex.split(flags)
        try:
            program = os.path.join(work, "%d.input.mlir" % n)
            run(base + ["--emit=input", "-o", program])
            # Training steps (the slowest compiles: their search runs on
            # the whole step) compare the local view only, which holds the
            # propagation's result too; the others compare both stages.
            training = any(f.startswith(("--train", "--grad"))
                           for f in shlex.split(flags))
            stages = ("local",) if local or training else ("global", "local")
            for stage in stages:
                a_out = os.path.join(work, "%d.%s.weftc.mlir" % (n, stage))
                b_out = os.path.join(work, "%d.%s.weft-opt.mlir" % (n, stage))
                pipe = "stop-after=%s %s" % (stage, options)
                extra = []
                if stage == "local":
                    # The local view's comm report too: with -o taking the
                    # IR, both tools print it to stdout.
                    pipe += " comm-report=json"
                    extra = ["--comm-report=json"]
                a_report = run(base + ["--emit=" + stage, "-o", a_out] + extra)
                b_report = run([weft_opt, program, "--weft-pipeline=" +
                                (pipe + " " + args.opt_extra).strip(), "-o",
                                b_out])
                with open(a_out) as fa, open(b_out) as fb:
                    ok &= same("%s --emit=%s" % (label, stage), fa.read(),
                               fb.read())
                if stage == "local":
                    ok &= same("%s comm report" % label, a_report, b_report)
        except RuntimeError as e:
            print("%s FAILED: %s" % (label, e))
            ok = False
    print("compared %d programs: %s" % (compared, "all same" if ok else
                                        "DIFFERENCES"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
