#!/usr/bin/env bash
# The cap on calls in flight counted by the provider itself: the mock BACEN as judge (it refuses, and counts, every
# request over --max-in-flight 6 in flight at once) and demo replicas on one permit pool of 6.
#   slow:  a provider answering in 10 s, 3 replicas x 20 callers with a 3 s call timeout, back to back for 20 s
#   mixed: a provider answering in 1 s, for 60 s: 2 replicas with PixClient's defaults (lease 45 s) and one service
#          with max wait 2 s and call timeout 5 s (lease 12 s), 10 callers each
# usage: bench/in-flight-judge.sh slow|mixed [demo jar] (after mvn -B -q package -DskipTests; REDIS_URL, default
# redis://127.0.0.1:6379). Prints the judge's count ("refused" = requests over the cap) and each replica's outcomes.
set -euo pipefail
SCENARIO=${1:?slow or mixed}
JAR=${2:-demo/target/bacen-demo.jar}
MOCK=bacen-mock/target/bacen-mock.jar
REDIS=${REDIS_URL:-redis://127.0.0.1:6379}
PORT=$((20000 + RANDOM % 10000))
DIR=$(mktemp -d)
case $SCENARIO in
  slow) LATENCY=10000 ;;
  mixed) LATENCY=1000 ;;
  *) echo "scenario must be slow or mixed, was: $SCENARIO" >&2; exit 64 ;;
esac
java -jar "$MOCK" --port "$PORT" --latency-ms "$LATENCY" --max-in-flight 6 --capacity 100000 \
  --refill-tokens 100000 >"$DIR/mock.log" 2>&1 &
MOCK_PID=$!
trap 'kill "$MOCK_PID" 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/admin/stats" && break; sleep 0.2; done
START=$(($(date +%s%3N) + 4000))
COMMON=(--bacen-url "http://127.0.0.1:$PORT" --redis-url "$REDIS" --mode THROTTLED --capacity 1000 --rate 1000
  --in-flight 6 --bucket-name "judge-$SCENARIO-$START" --start-at-ms "$START")
PIDS=()
if [ "$SCENARIO" = slow ]; then
  for i in 1 2 3; do
    java -jar "$JAR" replica "${COMMON[@]}" --calls 20 --duration-ms 20000 --max-wait-ms 1500 \
      --call-timeout-ms 3000 --replica-id "$i" >"$DIR/replica-$i.out" 2>"$DIR/replica-$i.err" &
    PIDS+=($!)
  done
else
  for i in 1 2; do
    java -jar "$JAR" replica "${COMMON[@]}" --calls 10 --duration-ms 60000 --replica-id "$i" \
      >"$DIR/replica-$i.out" 2>"$DIR/replica-$i.err" &
    PIDS+=($!)
  done
  java -jar "$JAR" replica "${COMMON[@]}" --calls 10 --duration-ms 60000 --max-wait-ms 2000 --call-timeout-ms 5000 \
    --replica-id 3 >"$DIR/replica-3.out" 2>"$DIR/replica-3.err" &
  PIDS+=($!)
fi
wait "${PIDS[@]}"
echo "judge ($SCENARIO): $(curl -s "http://127.0.0.1:$PORT/admin/stats" | grep -o '"demo":{[^}]*}')"
for i in 1 2 3; do
  echo "replica $i: $(grep '^RESULT' "$DIR/replica-$i.out" | grep -o '"outcome":"[^"]*"' | sort | uniq -c \
    | tr -s ' \n' ' ')"
  grep -h WARN "$DIR/replica-$i.err" | cut -c1-160 | sort | uniq -c | head -3 || true
done
