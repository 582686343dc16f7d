#!/usr/bin/env python3
"""docs/weftc.md's picture of the pipeline is the registered pipeline.

Reads the picture (the first ``` block after the line containing
PICTURE_MARKER in docs/weftc.md): the `--weft-*` passes in order, those in
[...] optional (off unless an option asks for them). Then asks weft-opt for
the pipeline weft-pipeline builds under several option sets
(--dump-pass-pipeline) and checks that

  - each pipeline's passes appear in the picture, in the picture's order;
  - the default options give exactly the picture's passes outside [...];
  - together the option sets give every pass of the picture.

Prints what it compared and exits 1 on the first mismatch.

  check_doc_order.py WEFT_OPT DOC
"""
import re
import subprocess
import sys

PICTURE_MARKER = "picture of weft-pipeline: test/Pipeline/doc-order.test"

CONFIGS = [
    "",
    "training=adamw micro-batches=2 mesh=model=2 remat-gathers=true "
    "comm-report=json",
    "training=sgd unsharded=true comm-report=text",
    "training=grad show-sharding=true stop-after=global",
    "training=adamw precision=bf16-mixed grad-reduce-dtype=f32",
    "precision=bf16-mixed stop-after=global",
    "input-view=local stop-after=local",
    "fuse=false schedule=false combine-bytes=0 outline-layers=false",
]


def picture(doc):
    lines = open(doc).read().splitlines()
    start = next(i for i, l in enumerate(lines) if PICTURE_MARKER in l)
    begin = next(i for i in range(start, len(lines))
                 if lines[i].startswith("```"))
    end = next(i for i in range(begin + 1, len(lines))
               if lines[i].startswith("```"))
    text = "\n".join(lines[begin + 1:end])
    passes, optional, depth = [], set(), 0
    for m in re.finditer(r"\[|\]|--(weft-[a-z-]+)", text):
        if m.group(0) == "[":
            depth += 1
        elif m.group(0) == "]":
            depth -= 1
        else:
            passes.append(m.group(1))
            if depth > 0:
                optional.add(m.group(1))
    return passes, optional


def registered(weft_opt, options):
    p = subprocess.run([weft_opt, "--weft-pipeline=" + options,
                        "--dump-pass-pipeline", "-o", "/dev/null"],
                       input="module {}\n", capture_output=True, text=True)
    # The pipeline is printed before it runs (an empty module may fail it).
    dump = p.stderr.split("Pass Manager with", 1)
    if len(dump) != 2:
        sys.exit("no --dump-pass-pipeline output for '%s':\n%s" %
                 (options, p.stderr))
    text = re.sub(r"\s+", "", dump[1].split("\n", 1)[1])
    return re.findall(r"(?<=[(,])(weft-[a-z-]+)(?=[{,)])", text)


def is_subsequence(sub, seq):
    it = iter(seq)
    return all(x in it for x in sub)


def main(argv):
    weft_opt, doc = argv[1:3]
    passes, optional = picture(doc)
    print("picture: %s" % " ".join(
        "[%s]" % p if p in optional else p for p in passes))
    if len(set(passes)) != len(passes):
        print("FAIL: a pass appears twice in the picture")
        return 1
    seen = set()
    for config in CONFIGS:
        got = registered(weft_opt, config)
        print("weft-pipeline{%s}: %s" % (config, " ".join(got)))
        seen.update(got)
        if not is_subsequence(got, passes):
            print("FAIL: not in the picture's order (or not in it)")
            return 1
        if config == "":
            want = [p for p in passes if p not in optional]
            if got != want:
                print("FAIL: the default pipeline is not the picture's "
                      "passes outside [...]: %s" % " ".join(want))
                return 1
    if seen != set(passes):
        print("FAIL: in the picture but never built: %s" %
              " ".join(sorted(set(passes) - seen)))
        return 1
    print("picture matches the registered pipeline")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
