#!/bin/bash
# Compares the plans two weftc builds choose for every example: the
# propagated global program (--emit=global) and the comm report of the
# local one, per example, with the training examples under their tests'
# --train flags (docs/performance.md, section 99). Prints one line per
# file that differs and a count; exits 1 when any differs.
#
# Usage: scripts/compare-plans.sh OLD_WEFTC NEW_WEFTC [OUTDIR]
set -u
old=$1 new=$2 out=${3:-$(mktemp -d)}
cd "$(dirname "$0")/.."
plans() { # weftc outdir file flags...
  local weftc=$1 dir=$2 f=$3
  shift 3
  local b
  b=$(echo "$f" | tr / _)
  "$weftc" "$f" "$@" --emit=global -o "$dir/$b.global" 2>/dev/null
  "$weftc" "$f" "$@" --comm-report --emit=local -o /dev/null \
    >"$dir/$b.comm" 2>/dev/null
}
for side in old new; do
  weftc=${!side}
  mkdir -p "$out/$side"
  for f in examples/canonical/*.mlir examples/auto/*.mlir \
    examples/ops/*.mlir; do
    plans "$weftc" "$out/$side" "$f"
  done
  plans "$weftc" "$out/$side" examples/training/ddp_mlp_b1024.mlir --train=sgd --lr 200
  plans "$weftc" "$out/$side" examples/training/ddp_mlp_b64.mlir --train=sgd --lr 200
  plans "$weftc" "$out/$side" examples/training/dropout_mlp.mlir --train=sgd --lr 0.1
  plans "$weftc" "$out/$side" examples/training/fsdp_mlp.mlir --train=sgd --lr 5
  plans "$weftc" "$out/$side" examples/training/pipeline_mlp.mlir --train=sgd --lr 1
  plans "$weftc" "$out/$side" examples/training/t1_sae.mlir --train=adamw --lr 1e-3
  plans "$weftc" "$out/$side" examples/training/t2_lm.mlir --train=adamw --lr 3e-3
  plans "$weftc" "$out/$side" examples/training/t2_lm_layers.mlir --train=adamw
  plans "$weftc" "$out/$side" examples/training/llama_lm.mlir --train=adamw --lr 3e-3
done
n=0 d=0
for f in "$out"/old/*; do
  n=$((n + 1))
  cmp -s "$f" "$out/new/$(basename "$f")" || {
    d=$((d + 1))
    echo "differs: $(basename "$f")"
  }
done
echo "$n file(s), $d differ ($out)"
[ "$d" = 0 ]
