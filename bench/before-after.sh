#!/usr/bin/env bash
# Same behaviour, before and after: runs the demo's four modes and four bench scenarios with the jars of two builds,
# alternating (before, after, before, ...) so that both see the same machine, RUNS times each. Logs go to OUT, one
# file per version, run and figure; read the figures off them (docs/benchmarks.md quotes them).
# Usage: bench/before-after.sh BEFORE_ROOT AFTER_ROOT [RUNS=3] [OUT=before-after]
#   a root is a checkout with its jars built: mvn -B -q package -DskipTests -pl demo,bench -am
set -euo pipefail
BEFORE=$(realpath "$1"); AFTER=$(realpath "$2"); RUNS=${3:-3}; OUT=${4:-before-after}
mkdir -p "$OUT"
run() { # version root run name args...
  local v=$1 root=$2 r=$3 name=$4; shift 4
  local t0=$SECONDS
  java -jar "$root/$@" > "$OUT/$v-$r-$name.log" 2>&1 || echo "failed: $v $r $name (see $OUT/$v-$r-$name.log)"
  echo "$v run $r $name: $((SECONDS - t0)) s"
}
for r in $(seq 1 "$RUNS"); do
  for v in before after; do
    root=$([ "$v" = before ] && echo "$BEFORE" || echo "$AFTER")
    run $v "$root" "$r" demo-default demo/target/bacen-demo.jar
    run $v "$root" "$r" demo-priorities demo/target/bacen-demo.jar --priorities
    run $v "$root" "$r" demo-foreign demo/target/bacen-demo.jar --foreign-rate 3
    run $v "$root" "$r" demo-in-flight demo/target/bacen-demo.jar --in-flight 6
    run $v "$root" "$r" bench-priorities bench/target/bench.jar priorities --seconds 20
    run $v "$root" "$r" bench-dict bench/target/bench.jar dict --users 100000
    run $v "$root" "$r" bench-permits bench/target/bench.jar permits
    run $v "$root" "$r" bench-foreign bench/target/bench.jar fleet --scenarios foreign --foreign-seconds 30
  done
done
