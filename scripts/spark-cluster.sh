#!/usr/bin/env bash
# A standalone Apache Spark cluster on this machine: one master and two workers on 127.0.0.1, run from the
# Spark jars Maven resolved for the spark/ module (nothing is downloaded from anywhere else). It exists to show
# that 'tierlab run FILE --executor spark --master spark://127.0.0.1:7077' works against a real cluster
# manager, not only local[N] (docs/spark.md).
#
#   scripts/spark-cluster.sh start    start the master and the workers; prints the master URL
#   scripts/spark-cluster.sh stop     stop the processes this script started (by their recorded ids)
#   scripts/spark-cluster.sh status   which of them are running
#
# Settings (environment): SPARK_MASTER_PORT (7077), SPARK_WORKERS (2), SPARK_WORKER_CORES (1 each),
# SPARK_WORKER_MEMORY (1g each). Logs and state: target/spark-cluster/.
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
cd "$ROOT"
STATE="$ROOT/target/spark-cluster"
HOST=127.0.0.1
PORT="${SPARK_MASTER_PORT:-7077}"
WORKERS="${SPARK_WORKERS:-2}"
CORES="${SPARK_WORKER_CORES:-1}"
MEMORY="${SPARK_WORKER_MEMORY:-1g}"
MASTER_URL="spark://$HOST:$PORT"
# The daemons need no --add-opens on Java 25 (docs/spark.md); these two flags silence its Unsafe and native-access warnings.
DAEMON_OPTS=(--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED -Xmx512m)

die() { echo "spark-cluster: $*" >&2; exit 1; }

find_java() {
  local candidate
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/*25* /usr/lib/jvm/temurin-25*; do
    if [[ -n "$candidate" && -x "$candidate/bin/java" && -x "$candidate/bin/javac" ]]; then echo "$candidate"; return 0; fi
  done
  return 1
}

# Spark's jars: the spark module's runtime class path less tierlab's own modules (the driver ships those with
# each application, so a worker never runs stale tierlab classes). A Spark home is a folder with jars/ in it;
# the workers start executors from it.
spark_home() {
  local classpath="$ROOT/spark/target/runtime-classpath.txt"
  if [[ ! -s "$classpath" || pom.xml -nt "$classpath" || spark/pom.xml -nt "$classpath" ]]; then
    mkdir -p "$(dirname "$classpath")"
    mvn -B -q -pl spark dependency:build-classpath -Dmdep.outputFile="$classpath" -DincludeScope=runtime \
      >"$STATE/resolve.log" 2>&1 || { cat "$STATE/resolve.log" >&2; die "could not resolve the Spark jars (mvn, log above)"; }
  fi
  rm -rf "$STATE/spark-home"
  mkdir -p "$STATE/spark-home/jars"
  local jar
  tr ':' '\n' <"$classpath" | while read -r jar; do
    [[ -n "$jar" && "$jar" == *.jar && "$jar" != */tierlab/tierlab-* ]] && ln -s "$jar" "$STATE/spark-home/jars/"
  done
  [[ -n "$(ls "$STATE/spark-home/jars" | grep '^spark-core_')" ]] || die "no spark-core jar among the resolved jars"
}

running() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

start() {
  mkdir -p "$STATE"
  running "$STATE/master.pid" && die "already running (master pid $(cat "$STATE/master.pid")); 'stop' first"
  local jdk
  jdk="$(find_java)" || die "Java 25 is needed (set JAVA_HOME)"
  export JAVA_HOME="$jdk" PATH="$jdk/bin:$PATH" MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
  spark_home
  # SPARK_LOCAL_IP: the daemons bind to loopback rather than guess an interface (and warn about it).
  export SPARK_HOME="$STATE/spark-home" SPARK_SCALA_VERSION=2.13 SPARK_LOCAL_IP="$HOST"
  local cp="$SPARK_HOME/jars/*" i
  java "${DAEMON_OPTS[@]}" -cp "$cp" org.apache.spark.deploy.master.Master --host "$HOST" --port "$PORT" \
    --webui-port 0 >"$STATE/master.log" 2>&1 &
  echo $! >"$STATE/master.pid"
  for (( i = 1; i <= WORKERS; i++ )); do
    mkdir -p "$STATE/worker-$i"
    java "${DAEMON_OPTS[@]}" -cp "$cp" org.apache.spark.deploy.worker.Worker --host "$HOST" --cores "$CORES" \
      --memory "$MEMORY" --webui-port 0 --work-dir "$STATE/worker-$i" "$MASTER_URL" >"$STATE/worker-$i.log" 2>&1 &
    echo $! >"$STATE/worker-$i.pid"
  done
  # Up when the master has registered every worker (its log says so once per worker).
  local waited=0
  until (( $(grep -c "Registering worker" "$STATE/master.log" 2>/dev/null || true) >= WORKERS )); do
    running "$STATE/master.pid" || { cat "$STATE/master.log" >&2; die "the master exited (log above)"; }
    (( waited++ < 120 )) || { stop; die "the workers did not register within 60 s (logs: $STATE)"; }
    sleep 0.5
  done
  echo "$MASTER_URL"
}

stop() {
  local pidfile
  for pidfile in "$STATE"/worker-*.pid "$STATE"/master.pid; do
    [[ -f "$pidfile" ]] || continue
    if running "$pidfile"; then
      kill "$(cat "$pidfile")" 2>/dev/null || true
    fi
    rm -f "$pidfile"
  done
}

status() {
  local pidfile any=0
  for pidfile in "$STATE"/master.pid "$STATE"/worker-*.pid; do
    [[ -f "$pidfile" ]] || continue
    any=1
    if running "$pidfile"; then echo "$(basename "$pidfile" .pid): running (pid $(cat "$pidfile"))"; else echo "$(basename "$pidfile" .pid): not running"; fi
  done
  (( any )) || echo "not started"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) die "usage: scripts/spark-cluster.sh start|stop|status" ;;
esac
