#!/usr/bin/env bash
# Submits 'tierlab run FILE --executor spark' to an existing Spark cluster with spark-submit (docs/spark.md).
# The application jar is tierlab-spark's; --jars ships tierlab's other module jars and their libraries, which the
# executors fetch once per application (the cluster's own Spark jars come first on every class path).
#
#   scripts/spark-submit.sh MASTER FILE [run flags]      e.g. scripts/spark-submit.sh spark://head:7077 experiments/catalog/big-sweep.yaml
#
# Uses $SPARK_HOME/bin/spark-submit when SPARK_HOME names a Spark distribution; otherwise the same entry point
# (org.apache.spark.deploy.SparkSubmit) from the Spark jars Maven resolved for the spark/ module. Build first
# ('./tierlab build'). Prints the spark-submit command it runs.
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
(( $# >= 2 )) || { echo "usage: scripts/spark-submit.sh MASTER FILE [run flags]" >&2; exit 2; }
MASTER="$1"
shift
VERSION=0.1.0-SNAPSHOT
APP_JAR="$ROOT/spark/target/tierlab-spark-$VERSION.jar"
[[ -f "$APP_JAR" ]] || { echo "spark-submit: $APP_JAR is missing; run './tierlab build' first" >&2; exit 1; }
CLASSPATH_FILE="$ROOT/experiments/target/runtime-classpath.txt"
if [[ ! -s "$CLASSPATH_FILE" ]]; then
  mvn -B -q -f "$ROOT/pom.xml" -pl experiments dependency:build-classpath -Dmdep.outputFile="$CLASSPATH_FILE" \
    -DincludeScope=runtime >/dev/null
fi
jars=()
for module in model workload engine sim hunt bench experiments; do jars+=("$ROOT/$module/target/tierlab-$module-$VERSION.jar"); done
# The file has no final newline, so read reports end of file; the array is complete all the same.
IFS=: read -r -a libraries <"$CLASSPATH_FILE" || true
for jar in "${libraries[@]}"; do [[ "$jar" == */tierlab/tierlab-* ]] || jars+=("$jar"); done
JARS="$(IFS=,; echo "${jars[*]}")"

if [[ -n "${SPARK_HOME:-}" && -x "$SPARK_HOME/bin/spark-submit" ]]; then
  submit=("$SPARK_HOME/bin/spark-submit")
else
  # Java 25, as the launcher finds it: JAVA_HOME when set, else the first JDK 25 under /usr/lib/jvm.
  java_home=""
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/*25* /usr/lib/jvm/temurin-25*; do
    if [[ -n "$candidate" && -x "$candidate/bin/java" ]]; then java_home="$candidate"; break; fi
  done
  [[ -n "$java_home" ]] || { echo "spark-submit: Java 25 is needed (set JAVA_HOME)" >&2; exit 1; }
  spark_jars="$ROOT/target/spark-cluster/spark-home/jars"
  [[ -d "$spark_jars" ]] || { echo "spark-submit: no SPARK_HOME and no $spark_jars (scripts/spark-cluster.sh start makes it)" >&2; exit 1; }
  submit=("$java_home/bin/java" --sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED -cp "$spark_jars/*"
          org.apache.spark.deploy.SparkSubmit)
fi
command=("${submit[@]}" --master "$MASTER" --class tierlab.experiments.cli.Main --jars "$JARS" "$APP_JAR" run "$@" --executor spark)
echo "spark-submit: ${submit[*]} --master $MASTER --class tierlab.experiments.cli.Main --jars <${#jars[@]} jars> $APP_JAR run $* --executor spark" >&2
# The driver resolves the experiment file and --out against the caller's folder, as './tierlab run' does.
exec "${command[@]}"
