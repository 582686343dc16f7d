"""Converts weights and checkpoints between per-layer names and the stacked
names of `weftc --pipeline-stages` (docs/pipeline.md, "Stages from layer
calls").

A program with K calls of one layer function names each layer's weights
`W_0 .. W_<K-1>`. Compiled with `--pipeline-stages=N`, the weights of stage
s's k-th layer (layer s*K/N + k) are one tensor `W_<k>.stages` of shape
[N, ...]: K/N stacked tensors per weight kind. The same holds for optimizer
state (`m_W_0` -> `m_W_0.stages`). This tool moves a directory of .npy files
or a checkpoint step directory (with its manifest.json) between the
layouts, so a run can continue on another stage count or without the
pipeline:

    python3 -m weft.restack SRC DST --layers 4 --stages 2    # per-layer -> 2 stages
    python3 -m weft.restack SRC DST --layers 4 --stages 0    # stacked -> per-layer
    python3 -m weft.restack SRC DST --layers 4 --stages 4    # any stacking -> 4 stages

The source layout is read from the names (a `.stages` tensor's leading
dimension is its stage count). Weight kinds are the name prefixes that have
exactly the indices 0 .. K-1 (`--kinds` names them instead). DST must not
exist; it is written beside it and renamed into place, so it is whole or
absent, and SRC is never changed. A checkpoint's manifest is rewritten with
each file's bytes and CRC-32; its other fields are kept.
"""

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import zlib

DTYPE_NAMES = {"float32": "f32", "float64": "f64", "int32": "i32",
               "float16": "f16"}
STACKED = re.compile(r"^(.*)_(\d+)\.stages$")
LAYER = re.compile(r"^(.*)_(\d+)$")


class RestackError(Exception):
    pass


def _np():
    try:
        import numpy
    except ImportError:
        raise RestackError("numpy is not importable by %s" % sys.executable)
    return numpy


def _kind_of(name):
    """A tensor's name without its layer index or stacking: W_3 and
    W_1.stages are both W (so their checkpoint roles are one)."""
    m = STACKED.match(name) or LAYER.match(name)
    return m.group(1) if m else name


def to_layers(arrays, layers, kinds=None):
    """{name: array} with every stacked tensor split into its layers."""
    out = {}
    stacked = {}
    for name, a in arrays.items():
        m = STACKED.match(name)
        if m and (kinds is None or m.group(1) in kinds):
            stacked.setdefault(m.group(1), {})[int(m.group(2))] = a
        else:
            out[name] = a
    for kind, parts in stacked.items():
        per = len(parts)
        if sorted(parts) != list(range(per)):
            raise RestackError("%s: stacked local layers %s, not 0..%d" %
                               (kind, sorted(parts), per - 1))
        stages = {parts[k].shape[0] for k in parts}
        if len(stages) != 1 or per * stages.pop() != layers:
            raise RestackError(
                "%s: %d stacked tensor(s) of %s stage(s) do not hold %d "
                "layers" % (kind, per, sorted({parts[k].shape[0]
                                               for k in parts}), layers))
        n = layers // per
        for k in range(per):
            for s in range(n):
                out["%s_%d" % (kind, s * per + k)] = parts[k][s]
    return out


def layer_kinds(names, layers):
    """The prefixes P with exactly P_0 .. P_<layers-1> among `names`."""
    found = {}
    for name in names:
        m = LAYER.match(name)
        if m:
            found.setdefault(m.group(1), set()).add(int(m.group(2)))
    return sorted(k for k, idx in found.items()
                  if idx == set(range(layers)))


def to_stages(arrays, layers, stages, kinds=None):
    """{name: array} with each weight kind's layers stacked over `stages`."""
    np = _np()
    if stages < 1 or layers % stages:
        raise RestackError("%d layers do not divide into %d stages" %
                           (layers, stages))
    if kinds is None:
        kinds = layer_kinds(arrays, layers)
    if not kinds:
        raise RestackError("no weight kind has the layer indices 0..%d" %
                           (layers - 1))
    per = layers // stages
    out = dict(arrays)
    for kind in kinds:
        for i in range(layers):
            if "%s_%d" % (kind, i) not in arrays:
                raise RestackError("%s_%d is missing" % (kind, i))
        for k in range(per):
            out["%s_%d.stages" % (kind, k)] = np.stack(
                [arrays["%s_%d" % (kind, s * per + k)] for s in range(stages)])
        for i in range(layers):
            del out["%s_%d" % (kind, i)]
    return out


def restack(src, dst, layers, stages, kinds=None):
    """Writes SRC's tensors to DST in the layout of `stages` (0: per-layer).
    Returns the names written."""
    np = _np()
    if os.path.exists(dst):
        raise RestackError("%s exists; choose a new directory" % dst)
    manifest = None
    mpath = os.path.join(src, "manifest.json")
    if os.path.exists(mpath):
        with open(mpath) as f:
            manifest = json.load(f)
        files = {t["name"]: t for t in manifest["tensors"]}
        arrays = {name: np.load(os.path.join(src, t["file"]))
                  for name, t in files.items()}
    else:
        arrays = {f[:-4]: np.load(os.path.join(src, f))
                  for f in sorted(os.listdir(src)) if f.endswith(".npy")}
    flat = to_layers(arrays, layers, kinds)
    out = flat if stages == 0 else to_stages(flat, layers, stages, kinds)
    roles = ({_kind_of(t["name"]): t.get("role") for t in manifest["tensors"]}
             if manifest is not None else {})
    parent = os.path.dirname(os.path.abspath(dst))
    # A checkpoint's step directory goes into its run directory: made if
    # missing (a step is renamed into place, never half written).
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".restack-", dir=parent)
    try:
        tensors = []
        for name, a in out.items():
            path = os.path.join(tmp, name + ".npy")
            np.save(path, a)
            if manifest is not None:
                data = open(path, "rb").read()
                role = roles.get(_kind_of(name))
                entry = {"name": name, "file": name + ".npy"}
                if role:
                    entry["role"] = role
                entry.update({"dtype": DTYPE_NAMES.get(str(a.dtype),
                                                       str(a.dtype)),
                              "shape": list(a.shape), "bytes": len(data),
                              "crc32": zlib.crc32(data)})
                tensors.append(entry)
        if manifest is not None:
            for extra in os.listdir(src):
                if not extra.endswith(".npy") and extra != "manifest.json":
                    shutil.copy(os.path.join(src, extra), tmp)
            manifest = dict(manifest, tensors=tensors)
            with open(os.path.join(tmp, "manifest.json"), "w") as f:
                json.dump(manifest, f, indent=2)
        os.rename(tmp, dst)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return sorted(out)


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m weft.restack",
        description="Convert .npy weights or a checkpoint step directory "
                    "between per-layer names and weftc --pipeline-stages' "
                    "stacked names.")
    ap.add_argument("src", help="a directory of .npy files or a checkpoint "
                                "step directory (step-NNNNNNNN)")
    ap.add_argument("dst", help="the new directory (must not exist)")
    ap.add_argument("--layers", type=int, required=True,
                    help="K, the number of layer calls")
    ap.add_argument("--stages", type=int, required=True,
                    help="N stages to stack over (0: per-layer names)")
    ap.add_argument("--kinds", help="weight name prefixes, comma-separated "
                                    "(default: every prefix with the indices "
                                    "0..K-1)")
    args = ap.parse_args(argv)
    kinds = args.kinds.split(",") if args.kinds else None
    try:
        names = restack(args.src, args.dst, args.layers, args.stages, kinds)
    except (RestackError, OSError, ValueError, KeyError) as e:
        print("weft.restack: error: %s" % e, file=sys.stderr)
        return 1
    print("weft.restack: wrote %d tensor(s) to %s (%s)" %
          (len(names), args.dst,
           "per-layer" if args.stages == 0 else "%d stages" % args.stages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
