#!/usr/bin/env bash
# Redis time per call of the token bucket's script, on its common path and with shares, against a trivial script
# with a reply of the same shape, from INFO commandstats (usec_per_call), on a private redis-server with
# redis-benchmark from one client.
# usage: bench/script-cost.sh [script.lua] [calls]
set -euo pipefail
LUA=${1:-throttle-redis/src/main/resources/io/pixquota/throttle/redis/internal/token_bucket.lua}
N=${2:-50000}
PORT=$((40000 + RANDOM % 9000))
DIR=$(mktemp -d)
redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes --dir "$DIR" \
  --logfile "$DIR/redis.log" --pidfile "$DIR/redis.pid"
trap 'kill "$(cat "$DIR/redis.pid")"; rm -rf "$DIR"' EXIT
for _ in $(seq 1 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
SHA=$(redis-cli -p "$PORT" SCRIPT LOAD "$(cat "$LUA")")
TRIVIAL=$(redis-cli -p "$PORT" SCRIPT LOAD "return '1 0 7 1764000000000000 1764000000000000'")
# acquire, cost 1, max wait 1000 s, Redis's clock; replica r1, one limit of 8 and 1e6/s, lease 30 s, AIMD defaults:
# every call is granted and writes the key, as in the hot-key benchmark. With shares: the calls of one flow of three.
SETTINGS='r1 8.0:1000000.0 30000000 30000000 0.85 0.005 0.25 15000000 5000000'
usec() { # sha, then the script's KEYS and ARGV
  local sha=$1
  shift
  redis-cli -p "$PORT" CONFIG RESETSTAT >/dev/null
  redis-benchmark -p "$PORT" -n "$N" -c 1 EVALSHA "$sha" "$@" >/dev/null
  redis-cli -p "$PORT" INFO commandstats | grep cmdstat_evalsha | sed 's/.*usec_per_call=\([0-9.]*\).*/\1/'
}
C=$(usec "$SHA" 1 'pixquota:{common}:tb' 'acquire 1 1000000000  ' "$SETTINGS")
S=$(usec "$SHA" 1 'pixquota:{shares}:tb' 'acquire 1 1000000000   checkout' \
  "$SETTINGS *=1.0,checkout=5.0,merchant-api=3.0")
T=$(usec "$TRIVIAL" 0)
echo "script $LUA, us per call: common path $C, shares $S (x$(awk "BEGIN {printf \"%.2f\", $S / $C}") the common" \
  "path); trivial script $T"
