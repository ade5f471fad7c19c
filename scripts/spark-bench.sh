#!/usr/bin/env bash
# Wall time of one sweep with the local executor, with Spark on local[2] and on the localhost standalone cluster
# (scripts/spark-cluster.sh), run interleaved: round 1 runs the three, then round 2, ... so that a machine that
# gets busier or quieter meanwhile weighs on all three alike. Prints one line per run and a summary per executor
# (docs/spark.md says how to read it); the outputs go to target/spark-bench/.
#
#   scripts/spark-bench.sh [FILE [ROUNDS]]     default: experiments/catalog/big-sweep.yaml, 2 rounds
#
# Starts the cluster when it is not running and stops it again at the end if it started it.
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
cd "$ROOT"
FILE="${1:-experiments/catalog/big-sweep.yaml}"
ROUNDS="${2:-2}"
OUT="$ROOT/target/spark-bench"
MASTER_URL="spark://127.0.0.1:${SPARK_MASTER_PORT:-7077}"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "spark-bench: ROUNDS must be a whole number >= 1" >&2; exit 2; }

started_cluster=0
if ! scripts/spark-cluster.sh status | grep -q "master: running"; then
  scripts/spark-cluster.sh start >/dev/null
  started_cluster=1
fi
trap '(( started_cluster )) && scripts/spark-cluster.sh stop' EXIT

rm -rf "$OUT"
mkdir -p "$OUT"
./tierlab build
for (( round = 1; round <= ROUNDS; round++ )); do
  for executor in local spark-local2 spark-cluster; do
    case "$executor" in
      local) flags=(--jobs 2) ;;
      spark-local2) flags=(--executor spark --master 'local[2]') ;;
      spark-cluster) flags=(--executor spark --master "$MASTER_URL") ;;
    esac
    dir="$OUT/$executor-$round"
    start=$(date +%s.%N)
    # The CPU seconds of this process (user + system), which for a cluster run is the driver's alone.
    cpu="$( { TIMEFORMAT='%U %S'; time ./tierlab run "$FILE" --out "$dir" --quiet "${flags[@]}" >"$dir.log" 2>&1 || true; } 2>&1 )"
    end=$(date +%s.%N)
    [[ -f "$dir/run.json" ]] || { cat "$dir.log" >&2; echo "spark-bench: the $executor run failed" >&2; exit 1; }
    echo "$executor $round $start $end $cpu" >>"$OUT/times.txt"
    echo "round $round $executor: $(head -n 1 "$dir.log")"
  done
done

# Tasks per second, slot time per task not spent in a run (scheduling, shipping the point and the result,
# start-up spread over the tasks), and whether every output table equals the local executor's.
python3 - "$OUT" <<'PY'
import json, sys, pathlib, filecmp, statistics
out = pathlib.Path(sys.argv[1])
rows = [line.split() for line in (out / "times.txt").read_text().splitlines()]
by = {}
for executor, rnd, start, end, user_s, system_s in rows:
    run = json.loads((out / f"{executor}-{rnd}" / "run.json").read_text())
    points = len(run["runs"])
    task_s = sum(r["wallSeconds"] for r in run["runs"])
    slots = run["threads"]
    same = all(filecmp.cmp(out / f"local-{rnd}" / f, out / f"{executor}-{rnd}" / f, shallow=False)
               for f in ("results.csv", "requests.csv", "timeseries.csv", "summary.json"))
    cpu_s = float(user_s) + float(system_s)
    by.setdefault(executor, []).append((float(end) - float(start), run["wallSeconds"], points, task_s, slots, same, cpu_s))
print(f"{'executor':<14} {'process s':>10} {'sweep s':>8} {'tasks/s':>8} {'run s/task':>10} {'overhead ms/task':>16}"
      f" {'process CPU ms/task':>19}  slots  tables = local")
for executor, runs in by.items():
    for process_s, sweep_s, points, task_s, slots, same, cpu_s in runs:
        overhead_ms = (sweep_s * slots - task_s) / points * 1000
        print(f"{executor:<14} {process_s:>10.1f} {sweep_s:>8.1f} {points / sweep_s:>8.1f} {task_s / points:>10.3f}"
              f" {overhead_ms:>16.1f} {cpu_s / points * 1000:>19.1f}  {slots:>5}  {same}")
    print(f"{executor:<14} median sweep {statistics.median(r[1] for r in runs):.1f} s over {len(runs)} runs")
PY
