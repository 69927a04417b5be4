#!/usr/bin/env bash
# Load test of the mock BACEN with wrk (Debian package `wrk`): requests/s of the Pix endpoint (auth, quota decision,
# audit, JSON) next to the same server's cheapest answer (an unknown path, 404 problem) measured in the same run.
# Usage: bench/mock-wrk.sh [seconds]   (after `mvn -B -q package -DskipTests`)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_RUN="${1:-15}"
PORT=18089
java -jar bacen-mock/target/bacen-mock.jar --port "$PORT" --capacity 1000000000 --refill-tokens 1000000000 \
  > /tmp/mock-wrk.log 2>&1 &
MOCK=$!
trap 'kill $MOCK 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.2; done
TOKEN=$(curl -s -u demo:demo-secret -d grant_type=client_credentials "http://127.0.0.1:$PORT/oauth/token" \
  | sed -E 's/.*"access_token":"([^"]+)".*/\1/')
PIX="http://127.0.0.1:$PORT/api/v2/pix/E12345678202611301200ABCDEFGHIJK"
wrk -t2 -c32 -d5s -H "Authorization: Bearer $TOKEN" "$PIX" > /dev/null # warm-up
rps() { wrk -t2 -c32 -d"${SECONDS_PER_RUN}s" "$@" | awk '/Requests\/sec/ {print $2}'; }
BASE=$(rps "http://127.0.0.1:$PORT/unknown")
PIXRPS=$(rps -H "Authorization: Bearer $TOKEN" "$PIX")
echo "| endpoint (wrk -t2 -c32, ${SECONDS_PER_RUN} s) | requests/s | ratio to baseline |"
echo "|---|---|---|"
echo "| unknown path, 404 problem (baseline) | $BASE | 1.00 |"
echo "| GET /api/v2/pix/{e2eid} (auth + quota + audit + JSON) | $PIXRPS | $(awk -v a="$PIXRPS" -v b="$BASE" 'BEGIN {printf "%.2f", a / b}') |"
