#!/usr/bin/env bash
# Fingerprints of the behaviour a refactor must keep: the decision-trace hashes of the Mooncake
# replay at 1x and 5x for every serving engine, and the tables of the five fast catalogue
# experiments. Writes them under DIR; compare two DIRs with `diff -r`.
#   tools/behaviour-check.sh DIR
set -euo pipefail
ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
out="${1:?usage: tools/behaviour-check.sh DIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$ROOT"
for scale in 1 5; do
  ./tierlab bench replay "$scale" 0 1 | sed -n 's/^run *\([^ ]*\) x[0-9.]*:.*trace hash \([0-9a-f]*\)$/\1 \2/p' > "$out/replay-x$scale.txt"
done
for name in quickstart l2-read-batching prefetch-window trace-tiering race-ablation; do
  ./tierlab run "experiments/catalog/$name.yaml" --out "$out/$name" --quiet > /dev/null
  for table in results requests timeseries; do
    [[ -f "$out/$name/$table.csv" ]] && sha256sum "$out/$name/$table.csv" | sed "s|$out/||" >> "$out/tables.sha256"
  done
done
cat "$out"/replay-x*.txt "$out/tables.sha256"
