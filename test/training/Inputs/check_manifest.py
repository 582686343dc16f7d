#!/usr/bin/env python3
"""Checks a weft checkpoint directory against its manifest.json with
Python's own zlib and numpy, independently of the runtime's reader: every
listed file exists with the recorded byte size, CRC-32, dtype and shape, and
no other .npy file is in the directory. Prints one summary line; exits 1 on
the first mismatch."""
import json
import os
import sys
import zlib

import numpy as np

DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32,
          "f16": np.float16}


def main():
    directory = sys.argv[1]
    with open(os.path.join(directory, "manifest.json")) as f:
        manifest = json.load(f)
    assert manifest["format"] == "weft-checkpoint", manifest["format"]
    names = []
    for t in manifest["tensors"]:
        path = os.path.join(directory, t["file"])
        data = open(path, "rb").read()
        if len(data) != t["bytes"]:
            sys.exit("%s: %d bytes, manifest %d" % (path, len(data), t["bytes"]))
        if zlib.crc32(data) != t["crc32"]:
            sys.exit("%s: crc32 %08x, manifest %08x" %
                     (path, zlib.crc32(data), t["crc32"]))
        a = np.load(path)
        if t["dtype"] in DTYPES and a.dtype != DTYPES[t["dtype"]]:
            sys.exit("%s: dtype %s, manifest %s" % (path, a.dtype, t["dtype"]))
        if list(a.shape) != t["shape"]:
            sys.exit("%s: shape %s, manifest %s" % (path, a.shape, t["shape"]))
        names.append(t["name"])
    listed = set(t["file"] for t in manifest["tensors"])
    extra = [f for f in os.listdir(directory)
             if f.endswith(".npy") and f not in listed]
    if extra:
        sys.exit("files not in the manifest: %s" % extra)
    print("manifest step %d: %d file(s) match: %s" %
          (manifest["step"], len(names), " ".join(names)))


if __name__ == "__main__":
    main()
