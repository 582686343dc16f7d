"""Test helper: every configured compile and link flag of the build
(CMakeCache.txt: CMAKE_CXX_FLAGS, CMAKE_EXE_LINKER_FLAGS and their build-type
variants) appears in the C++ command `weftc -v` prints (read from stdin),
and weftc's own optimization flags follow them: -O1, and -fno-tree-pta when
the compiler is GCC (docs/weftc.md, "Why -fno-tree-pta").

  check_flags.py BUILD_DIR < weftc-v-output
"""
import os
import shlex
import subprocess
import sys


def main(argv):
    cache = {}
    with open(os.path.join(argv[1], "CMakeCache.txt")) as f:
        for line in f:
            if ":" in line and "=" in line and not line.startswith(("//", "#")):
                key, value = line.rstrip("\n").split("=", 1)
                cache[key.split(":")[0]] = value
    build_type = cache.get("CMAKE_BUILD_TYPE", "").upper()
    expected = []
    for var in ("CMAKE_CXX_FLAGS", "CMAKE_EXE_LINKER_FLAGS"):
        for name in (var, var + "_" + build_type if build_type else None):
            if name:
                expected += shlex.split(cache.get(name, ""))
    command = [l for l in sys.stdin.read().splitlines()
               if l.startswith("weftc: ") and " -std=c++20 " in l]
    if not command:
        print("no C++ command in the weftc -v output")
        return 1
    words = shlex.split(command[-1][len("weftc: "):])
    missing = [f for f in expected if f not in words]
    if missing:
        print("missing configured flags: %s" % " ".join(missing))
        return 1
    print("configured flags: %d, all in the command" % len(expected))
    version = subprocess.run([words[0], "--version"], capture_output=True,
                             text=True).stdout
    gcc = "Free Software Foundation" in version and "clang" not in version
    want = ["-O1", "-fno-tree-pta"] if gcc else ["-O1"]
    at = [i for i in range(len(words)) if words[i:i + len(want)] == want]
    if not at:
        print("weftc's flags %s not in the command (%s)" % (
            " ".join(want), "GCC" if gcc else "not GCC"))
        return 1
    print("weftc's optimization flags: %s (%s)" % (" ".join(want),
                                                 "GCC" if gcc else "not GCC"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
