#!/usr/bin/env bash
# The main source files one warm getPix and one warm getEntry run (JaCoCo: files with a covered line), by module.
# Usage: bench/call-path-files.sh [DEMO_JAR]   (default demo/target/bacen-demo.jar; build it with
#   mvn -B -q package -DskipTests). Another release: build its demo jar from a git worktree and pass it.
# Needs Redis (REDIS_URL, default redis://127.0.0.1:6379) and the JaCoCo agent and CLI (fetched by Maven).
set -euo pipefail
cd "$(dirname "$0")/.."
JAR=$(realpath "${1:-demo/target/bacen-demo.jar}")
V=0.8.15
# outside the project: these fetch two jars, they build nothing
(cd "${TMPDIR:-/tmp}" && mvn -B -q dependency:get -Dtransitive=false -Dartifact=org.jacoco:org.jacoco.agent:$V:jar:runtime \
  && mvn -B -q dependency:get -Dtransitive=false -Dartifact=org.jacoco:org.jacoco.cli:$V:jar:nodeps) >/dev/null
M2=${MAVEN_REPOSITORY:-$HOME/.m2/repository}
AGENT=$M2/org/jacoco/org.jacoco.agent/$V/org.jacoco.agent-$V-runtime.jar
CLI=$M2/org/jacoco/org.jacoco.cli/$V/org.jacoco.cli-$V-nodeps.jar
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
java -javaagent:"$AGENT"=output=none,includes=io.pixquota.* -cp "$JAR" bench/callpath/CallPath.java "$OUT" \
  >"$OUT/run.log" 2>&1 || { cat "$OUT/run.log"; exit 1; }
mkdir -p "$OUT/classes" && (cd "$OUT/classes" && unzip -q -o "$JAR" 'io/pixquota/*')
for call in pix dict; do
  java -jar "$CLI" report "$OUT/$call.exec" --classfiles "$OUT/classes" --csv "$OUT/$call.csv" >/dev/null
done
python3 - "$OUT" <<'PY'
import csv, sys, collections
out = sys.argv[1]
files = {}
for call in ('pix', 'dict'):
    seen = set()
    for row in csv.DictReader(open(f'{out}/{call}.csv')):
        pkg = row['PACKAGE']
        if pkg.startswith(('io.pixquota.mock', 'io.pixquota.demo', 'io.pixquota.harness')):
            continue  # the provider and the program around the call, not the SDK's path
        if int(row['LINE_COVERED']) > 0:
            seen.add(pkg + '.' + row['CLASS'].split('.')[0])
    files[call] = seen
both = files['pix'] & files['dict']
for call in ('pix', 'dict'):
    by = collections.Counter(f.rsplit('.', 2)[0] if f.count('.') > 3 else f for f in files[call])
    print(f"{'getPix' if call == 'pix' else 'getEntry'}: {len(files[call])} main source files")
    for f in sorted(files[call]):
        print('  ' + f + ('' if f in both else '   (this call only)'))
print(f"shared by both: {len(both)}")
PY
