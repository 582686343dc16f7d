# -*- Python -*-
# lit configuration of the weft test suite.

import os
import shutil
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "WEFT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.weft_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%weft_src", config.weft_src_root))
config.substitutions.append(("%weft_obj", config.weft_obj_root))
# The interpreter lit itself runs under: the one tests' numpy must import in.
config.substitutions.append(("%python", sys.executable))

llvm_config.with_system_environment(["HOME", "TMPDIR", "OMPI_MCA_pml"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.weft_tools_dir, append_path=True)

# weftc's compile cache (docs/weftc.md, "The compile cache"): the tests
# build the same programs many times over (each example's one-device
# reference, the same step on several meshes), and a build of C++ already
# built copies the executable. Kept in the build tree across runs; its
# key covers the runtime's libraries and headers, so a changed runtime
# misses. Emptied when its entries pass 4 GiB (most are hard links of the
# tests' own executables and take no space of their own).
weftc_cache = os.path.join(config.test_exec_root, ".weftc-cache")
if os.path.isdir(weftc_cache):
    size = sum(e.stat().st_size for e in os.scandir(weftc_cache)
               if e.is_file(follow_symlinks=False))
    if size > 4 << 30:
        shutil.rmtree(weftc_cache, ignore_errors=True)
config.environment["WEFTC_CACHE_DIR"] = weftc_cache

tools = ["weft-opt", "weft-interp", "weftc", "weft-calibrate", "weft-translate"]
llvm_config.add_tool_substitutions(
    [ToolSubst(t, unresolved="fatal") for t in tools],
    [config.weft_tools_dir])

# Features for tests that need outside tools: a missing tool shows as
# UNSUPPORTED, never as a silent pass.
if shutil.which("mpirun"):
    config.available_features.add("mpi")
# A build under AddressSanitizer (scripts/sanitize.sh): its allocator
# reports an impossible allocation as an error and exits instead of
# letting `new` throw, so the tests of that path do not apply there.
if "-fsanitize=address" in getattr(config, "weft_cxx_flags", ""):
    config.available_features.add("asan")
if shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc"):
    config.available_features.add("nvcc")
# Mounting a small tmpfs (a full disk on demand): root, and a kernel that
# lets this process mount. Probed once.
if os.geteuid() == 0 and shutil.which("mount"):
    import subprocess
    import tempfile
    probe = tempfile.mkdtemp(prefix="weft-lit-tmpfs-")
    try:
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs",
                           probe], capture_output=True).returncode == 0:
            subprocess.run(["umount", probe], capture_output=True)
            config.available_features.add("tmpfs-mount")
    finally:
        os.rmdir(probe)
try:
    import numpy  # noqa: F401
    config.available_features.add("numpy")
except ImportError:
    pass
# The Python front end's suite (test/python) runs pytest in this
# interpreter; without it the test shows as UNSUPPORTED.
try:
    import pytest  # noqa: F401
    config.available_features.add("pytest")
except ImportError:
    pass

# The directory of weftc and weft-opt, for test drivers that run them
# (test/e2e), and the independent numpy evaluator (test/numpy).
config.substitutions.append(("%weft_bin", config.weft_tools_dir))
config.substitutions.append(
    ("%weft_numpy", os.path.join(config.weft_src_root, "test", "numpy",
                                 "weft_numpy.py")))
