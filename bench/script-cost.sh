#!/usr/bin/env bash
# Redis time per call of a bucket script against a trivial script with a reply of the same shape, from
# INFO commandstats (usec_per_call), on a private redis-server with redis-benchmark from one client.
# usage: bench/script-cost.sh [script.lua] [calls]
set -euo pipefail
LUA=${1:-bacen-client/src/main/resources/io/pixquota/bacen/internal/token_bucket.lua}
N=${2:-50000}
PORT=$((40000 + RANDOM % 9000))
DIR=$(mktemp -d)
redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes --dir "$DIR" \
  --logfile "$DIR/redis.log" --pidfile "$DIR/redis.pid"
trap 'kill "$(cat "$DIR/redis.pid")"; rm -rf "$DIR"' EXIT
for _ in $(seq 1 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
SHA=$(redis-cli -p "$PORT" SCRIPT LOAD "$(cat "$LUA")")
TRIVIAL=$(redis-cli -p "$PORT" SCRIPT LOAD "return '1 0 7 1764000000000000 1764000000000000'")
# acquire, cost 1, max wait 1000 s, Redis's clock, lease 30 s, AIMD defaults, one limit of 8 and 1e6/s: every call
# is granted and writes the key, as in the hot-bucket benchmark
ARGS=(1 'pixquota:{hot}:tb' acquire 1 1000000000 '' '' '30000000 0.85 0.005 0.25 8.0:1000000.0')
usec() {
  redis-cli -p "$PORT" CONFIG RESETSTAT >/dev/null
  redis-benchmark -p "$PORT" -n "$N" -c 1 EVALSHA "$1" "${ARGS[@]}" >/dev/null
  redis-cli -p "$PORT" INFO commandstats | grep cmdstat_evalsha | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/'
}
B=$(usec "$SHA")
T=$(usec "$TRIVIAL")
echo "script $LUA: usec_per_call=$B; trivial script: $T; ratio $(awk "BEGIN {printf \"%.2f\", $B / $T}")"
