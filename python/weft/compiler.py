"""Running weft's tools on a traced program.

The tools are found, in order: the `weftc=` (or `tool_dir=`) argument, the
directory in the WEFT_BIN environment variable, then PATH. A tool's
failure raises WeftcError with its diagnostics, which name the Python file
and line of the offending op (every op carries the user's location).
"""

import os
import shutil
import subprocess
import tempfile

from .errors import WeftcError


def find_tool(name, explicit=None):
    """The path of weft tool `name` (weftc, weft-interp, weft-opt)."""
    if explicit:
        if os.path.isdir(explicit):
            explicit = os.path.join(explicit, name)
        if not os.access(explicit, os.X_OK):
            raise FileNotFoundError("%s: not an executable" % explicit)
        return explicit
    bin_dir = os.environ.get("WEFT_BIN")
    if bin_dir:
        path = os.path.join(bin_dir, name)
        if os.access(path, os.X_OK):
            return path
    path = shutil.which(name)
    if path:
        return path
    raise FileNotFoundError(
        "%s not found: set WEFT_BIN to the directory of weft's tools (the "
        "build's bin/), put it on PATH, or pass its path" % name)


def _source(program, directory):
    """Writes the program's text next to the output and returns its path."""
    path = os.path.join(directory, "%s.mlir" % program.name)
    program.save(path)
    return path


def run_tool(name, args, tool=None):
    """Runs a weft tool; returns its stdout, raises WeftcError on failure."""
    command = [find_tool(name, tool)] + list(args)
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise WeftcError(command, proc.returncode,
                         (proc.stderr + proc.stdout).strip())
    return proc.stdout


def compile(program, out, train=None, lr=None, emit=None, weftc=None,
            extra_args=(), source=None, pipeline_stages=None,
            pipeline_micro_batches=None, pipeline_schedule=None):
    """Compiles `program` with weftc to `out` and returns `out`.

    `train="adamw"` (with `lr`) builds the training executable; `emit`
    ("global", "local", "cpp") writes that stage instead of an executable.
    `pipeline_stages=N` (with `pipeline_micro_batches=M`) pipelines the
    program's calls of one `@weft.layer` function over the mesh axis
    "stage" (weftc --pipeline-stages; docs/pipeline.md, "Stages from layer
    calls"); each stage's weights are then named `<name>.stages`
    (`python3 -m weft.restack` converts files). `pipeline_schedule="1f1b"`
    runs each micro-batch's backward as soon as its loss is known (weftc
    --pipeline-schedule; the loss must be a sum over the batch's rows;
    docs/pipeline.md, "1F1B from layer calls"); the default is GPipe.
    The program's MLIR text is written to `source` (default: `out` +
    ".mlir"), which weftc reads.
    """
    out = os.path.abspath(out)
    if source is None:
        source = out + ".mlir"
    program.save(source)
    args = [source, "-o", out]
    if train:
        args.append("--train=%s" % train)
    if lr is not None:
        args += ["--lr", repr(float(lr))]
    if emit:
        args.append("--emit=%s" % emit)
    if pipeline_stages is not None:
        args.append("--pipeline-stages=%d" % pipeline_stages)
    if pipeline_micro_batches is not None:
        args.append("--pipeline-micro-batches=%d" % pipeline_micro_batches)
    if pipeline_schedule is not None:
        args.append("--pipeline-schedule=%s" % pipeline_schedule)
    args += list(extra_args)
    run_tool("weftc", args, weftc)
    return out


def interpret(program, seed=0, tool=None, extra_args=()):
    """Evaluates `program` with weft-interp (inputs drawn from `seed`);
    returns its output: each result's type and checksum."""
    with tempfile.TemporaryDirectory(prefix="weft-py-") as d:
        path = _source(program, d)
        return run_tool("weft-interp", [path, "--seed", str(seed)] +
                        list(extra_args), tool)


def show_sharding(program, names=None, weftc=None, extra_args=()):
    """The layouts weft-propagate chose for the program's inputs and
    outputs (only `names` when given), as device grids: the text of
    `weftc --emit=global --show-sharding` (docs/propagation.md, "Seeing the
    layouts"). `extra_args`: more weftc flags (e.g. ["--train=adamw"])."""
    with tempfile.TemporaryDirectory(prefix="weft-py-") as d:
        path = _source(program, d)
        flag = "--show-sharding"
        if names:
            flag += "=" + ",".join(names)
        return run_tool("weftc", [path, "--emit=global", flag, "-o",
                                  os.path.join(d, "global.mlir")] +
                        list(extra_args), weftc)
