#!/usr/bin/env bash
# Proves the dashboard and the alert rules against a real Prometheus: starts a private redis-server, the mock BACEN
# and two demo replicas serving /metrics, scrapes them with docs/prometheus.yml's settings (its targets pointed at
# them), evaluates every PromQL expression of docs/grafana/dashboards/pixquota.json and docs/prometheus-rules.yml (a
# rule without its final comparison: the series it compares) through Prometheus's HTTP API, and fails when any
# returns no series. Also runs `promtool check rules` and `promtool check config`.
#
# Installs nothing: needs Debian's prometheus package (`apt-get install prometheus`: prometheus and promtool),
# redis-server, python3, curl, and the jars (`mvn -B -q package -DskipTests`).
# usage: docs/check-prometheus.sh
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in prometheus promtool redis-server python3 curl; do
  command -v "$tool" >/dev/null || { echo "check-prometheus: '$tool' not found (apt-get install prometheus" \
    "redis-server python3 curl)" >&2; exit 2; }
done
for jar in bacen-mock/target/bacen-mock.jar demo/target/bacen-demo.jar; do
  [ -f "$jar" ] || { echo "check-prometheus: $jar missing: mvn -B -q package -DskipTests" >&2; exit 2; }
done

promtool check rules docs/prometheus-rules.yml
promtool check config docs/prometheus.yml

DIR=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$DIR"
}
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
REDIS_PORT=$(port); MOCK_PORT=$(port); M1=$(port); M2=$(port); PROM_PORT=$(port)

redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$DIR" \
  --logfile "$DIR/redis.log" &
PIDS+=($!)
java -jar bacen-mock/target/bacen-mock.jar --port "$MOCK_PORT" > "$DIR/mock.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$MOCK_PORT/admin/stats" && break; sleep 0.2; done
for i in 1 2; do
  metrics=$([ "$i" = 1 ] && echo "$M1" || echo "$M2")
  java -jar demo/target/bacen-demo.jar replica --bacen-url "http://127.0.0.1:$MOCK_PORT" \
    --redis-url "redis://127.0.0.1:$REDIS_PORT" --mode THROTTLED --replica-id "$i" --calls 10 --capacity 8 \
    --rate 9 --in-flight 6 --bursts 0 --pause-ms 2000 --metrics-port "$metrics" > "$DIR/replica-$i.log" 2>&1 &
  PIDS+=($!)
done

# docs/prometheus.yml's settings, its targets pointed at the two replicas and its rule file at docs/
sed -e "s/replica-1:9100/127.0.0.1:$M1/" -e "s/replica-2:9100/127.0.0.1:$M2/" \
  -e "s#- prometheus-rules.yml#- $PWD/docs/prometheus-rules.yml#" docs/prometheus.yml > "$DIR/prometheus.yml"
prometheus --config.file="$DIR/prometheus.yml" --storage.tsdb.path="$DIR/tsdb" \
  --web.listen-address="127.0.0.1:$PROM_PORT" > "$DIR/prometheus.log" 2>&1 &
PIDS+=($!)

echo "check-prometheus: scraping two replicas for 40 s (rate() over 1 m needs a few samples)"
sleep 40

python3 - "$PROM_PORT" <<'PY'
import json, re, sys, urllib.parse, urllib.request
port = sys.argv[1]
exprs = []
for panel in json.load(open("docs/grafana/dashboards/pixquota.json"))["panels"]:
    if panel["title"].startswith("DICT:"):
        continue  # a DictClient's metrics, not the PIX replicas': DictMetricsTest checks them
    for target in panel["targets"]:
        # Grafana's "All" of the quota variable: its allValue
        exprs.append(("dashboard: " + panel["title"], target["expr"].replace("$quota", ".*")))
# each variable's values (Grafana's label_values(metric, label)): the metric carries the label
for var in json.load(open("docs/grafana/dashboards/pixquota.json")).get("templating", {}).get("list", []):
    metric, label = re.match(r"label_values\((\w+), (\w+)\)", var["definition"]).groups()
    exprs.append(("variable: " + var["name"], 'count by (%s) (%s{%s!=""})' % (label, metric, label)))
rules = open("docs/prometheus-rules.yml").read().split("- name: pixquota-dict")[0]
for name, expr in re.findall(r"- alert: (\S+)\n\s+expr: (>-\n(?:\s{10}.*\n)+|.*\n)", rules):
    expr = " ".join(line.strip() for line in expr.replace(">-\n", "").splitlines())
    # the series the rule compares: without its final comparison
    exprs.append(("rule: " + name, re.sub(r"\s*(>|<|==|>=|<=|!=)\s*[0-9.]+\s*$", "", expr)))
failed = 0
for where, expr in exprs:
    url = "http://127.0.0.1:%s/api/v1/query?query=%s" % (port, urllib.parse.quote(expr))
    answer = json.load(urllib.request.urlopen(url))
    series = len(answer["data"]["result"]) if answer.get("status") == "success" else 0
    print("%-4s %3d series  %s  |  %s" % ("ok" if series else "FAIL", series, where, expr))
    failed += 0 if series else 1
rules_total = len(re.findall(r"- alert: ", rules))
print("%d expressions (%d alert rules), %d without a series" % (len(exprs), rules_total, failed))
sys.exit(1 if failed or rules_total == 0 else 0)
PY
