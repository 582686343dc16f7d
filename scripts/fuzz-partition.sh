#!/usr/bin/env bash
# Long differential run of the partitioner (docs/differential-testing.md).
#
# For seed S = START, START+1, ...: generate PER_SEED random programs into one
# module (test/Differential/Inputs/gen_random_programs.py), verify it, run
#   weft-opt --weft-propagate --weft-pad-uneven --weft-partition
# and compare the global and the partitioned program on every rank with
#   weft-interp --compare --all-funcs.
# Stops at the first seed that fails, names the failing case(s) and prints the
# commands that reproduce them. Nothing is minimized automatically.
#
# Usage: scripts/fuzz-partition.sh [CASES] [options]
#   CASES             total number of cases (default 5000)
#   --start S         first seed (default 1000)
#   --per-seed N      cases per seed, i.e. per module (default 100)
#   --max-ops K       ops per program, at most (default 12)
#   --avoid X         pass --avoid X to the generator (leave out a construct
#                     with a known bug); repeatable
#   --uneven P        fraction of cases with uneven dims (generator default
#                     0.4; 1: all, 0: the even-only programs)
#   --keep-going      report every failing seed instead of stopping
#   --out DIR         where modules go (default: a fresh mktemp -d)
# Environment: WEFT_BUILD (default: <repo>/build), PYTHON (default: python3).
set -u -o pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${WEFT_BUILD:-$repo/build}
python=${PYTHON:-python3}
gen=$repo/test/Differential/Inputs/gen_random_programs.py
opt=$build/bin/weft-opt
interp=$build/bin/weft-interp

cases=5000 start=1000 per_seed=100 max_ops=12 keep_going=0 out=""
avoid=() uneven=()
while [ $# -gt 0 ]; do
  case $1 in
    --start) start=$2; shift 2 ;;
    --per-seed) per_seed=$2; shift 2 ;;
    --max-ops) max_ops=$2; shift 2 ;;
    --avoid) avoid+=(--avoid "$2"); shift 2 ;;
    --uneven) uneven=(--uneven "$2"); shift 2 ;;
    --keep-going) keep_going=1; shift ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0" | cut -c3-; exit 0 ;;
    [0-9]*) cases=$1; shift ;;
    *) echo "fuzz-partition: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
for t in "$opt" "$interp"; do
  [ -x "$t" ] || { echo "fuzz-partition: $t not built (ninja weft-opt weft-interp)" >&2; exit 2; }
done
[ -n "$out" ] || out=$(mktemp -d /tmp/weft-fuzz.XXXXXX)
mkdir -p "$out"

seeds=$(( (cases + per_seed - 1) / per_seed ))
echo "fuzz-partition: $seeds seed(s) x $per_seed case(s) from seed $start, max $max_ops ops${avoid[*]:+, ${avoid[*]}}${uneven[*]:+, ${uneven[*]}}; files in $out"

# Others may be relinking the tools while we run: wait until they are back.
wait_tools() {
  local w=0
  while { ! [ -x "$opt" ] || ! [ -x "$interp" ]; } && [ $w -lt 300 ]; do
    sleep 1; w=$((w + 1))
  done
}

# Prints the reproduction of case I of seed S (failure kind K).
reproduce() {
  local s=$1 i=$2 kind=$3 f=case${1}_${2}
  cat <<EOF
  case @$f ($kind). Reproduce it alone:
    $python $gen $out/$f.mlir --seed $s --only $i --max-ops $max_ops${avoid[*]:+ ${avoid[*]}}${uneven[*]:+ ${uneven[*]}}
    $opt $out/$f.mlir -o /dev/null                      # verifies (else: generator bug)
    $opt --weft-propagate --weft-pad-uneven --weft-partition $out/$f.mlir -o $out/$f.local.mlir
    $interp $out/$f.mlir --compare $out/$f.local.mlir --all-funcs
EOF
  "$python" "$gen" "$out/$f.mlir" --seed "$s" --only "$i" --max-ops "$max_ops" "${avoid[@]}" "${uneven[@]}" >/dev/null
}

# The case index of the function around line L of a module.
case_at_line() {
  awk -v l="$1" 'NR <= l && /^func.func @case/ { n = $0 } END {
    sub(/^func.func @case[0-9]*_/, "", n); sub(/\(.*/, "", n); print n }' "$2"
}

failed=0 total=0 t0=$(date +%s.%N)
for ((k = 0; k < seeds; k++)); do
  s=$((start + k))
  n=$per_seed
  [ $((total + n)) -gt "$cases" ] && n=$((cases - total))
  g=$out/seed$s.mlir l=$out/seed$s.local.mlir
  "$python" "$gen" "$g" --seed "$s" --count "$n" --max-ops "$max_ops" "${avoid[@]}" "${uneven[@]}" >/dev/null || {
    echo "seed $s: GENERATOR FAILED"; exit 2; }
  bad=""
  wait_tools
  if ! "$opt" "$g" -o /dev/null 2>"$out/seed$s.verify.txt"; then
    line=$(grep -m1 -o "seed$s.mlir:[0-9]*" "$out/seed$s.verify.txt" | cut -d: -f2)
    if [ -z "$line" ]; then
      echo "seed $s: weft-opt could not run: $(head -c 300 "$out/seed$s.verify.txt")"; exit 2
    fi
    echo "seed $s: GENERATOR BUG: the generated module does not verify (a bug of gen_random_programs.py, not of the compiler):"
    grep -m3 "error:" "$out/seed$s.verify.txt"
    [ -n "$line" ] && reproduce "$s" "$(case_at_line "$line" "$g")" "does not verify"
    exit 2
  fi
  "$opt" --weft-propagate --weft-pad-uneven --weft-partition "$g" -o "$l" 2>"$out/seed$s.opt.txt"
  rc=$?
  if [ $rc -ne 0 ]; then
    line=$(grep -m1 -o "seed$s.mlir:[0-9]*" "$out/seed$s.opt.txt" | cut -d: -f2)
    kind="weft-opt failed with exit status $rc"
    [ $rc -gt 128 ] && kind="weft-opt CRASHED (signal $((rc - 128)))"
    echo "seed $s: $kind:"
    grep -m3 -E "error:|Assertion|Stack dump" "$out/seed$s.opt.txt"
    if [ -n "$line" ]; then reproduce "$s" "$(case_at_line "$line" "$g")" "$kind"
    else echo "  (no location; full log: $out/seed$s.opt.txt)"; fi
    bad=1
  else
    "$interp" "$g" --compare "$l" --all-funcs >"$out/seed$s.compare.txt" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
      echo "seed $s: weft-interp --compare failed (exit $rc): $(grep compare-all "$out/seed$s.compare.txt")"
      # Find the failing functions one by one.
      for ((i = 0; i < n; i++)); do
        f=case${s}_$i
        if ! "$interp" "$g" --func "$f" --compare "$l" --local-func "$f" \
             >"$out/$f.compare.txt" 2>&1; then
          grep -m2 -E "MISMATCH|error:" "$out/$f.compare.txt" | cut -c1-300
          reproduce "$s" "$i" "mismatch"
        fi
      done
      bad=1
    fi
  fi
  total=$((total + n))
  now=$(date +%s.%N)
  if [ -n "$bad" ]; then
    failed=$((failed + 1))
    [ $keep_going -eq 1 ] || {
      printf 'fuzz-partition: FAILED at seed %s after %d case(s), %.1f s\n' "$s" "$total" "$(echo "$now - $t0" | bc)"
      exit 1; }
  elif [ $(( (k + 1) % 10 )) -eq 0 ] || [ $((k + 1)) -eq "$seeds" ]; then
    printf 'fuzz-partition: %d case(s) (seeds %d..%d) pass, %.1f s\n' "$total" "$start" "$s" "$(echo "$now - $t0" | bc)"
  fi
done
now=$(date +%s.%N)
if [ $failed -gt 0 ]; then
  printf 'fuzz-partition: %d seed(s) FAILED among %d case(s), %.1f s\n' "$failed" "$total" "$(echo "$now - $t0" | bc)"
  exit 1
fi
printf 'fuzz-partition: all %d case(s) match, %.1f s\n' "$total" "$(echo "$now - $t0" | bc)"
