#!/usr/bin/env bash
# Miss ratios of tierlab's clock, lfuda, gdsf, lirs and lecar against libCacheSim's Clock, LFUDA, GDSF,
# LIRS and LeCaR on the same reference stream: the Mooncake trace in data/ flattened request by request,
# each request's hash_ids in prompt order (the order `tierlab replay` feeds them), one unit per block.
# Writes docs/libcachesim-comparison.csv (docs/policies.md, "Compared with libCacheSim").
#   tools/libcachesim-compare.sh LIBCACHESIM_DIR SCRATCH_DIR
# LIBCACHESIM_DIR: a libCacheSim source tree built in LIBCACHESIM_DIR/_build (cmake -DCMAKE_BUILD_TYPE=Release
# -DENABLE_TESTS=OFF .. && make libCacheSim), outside this repository (it is GPL). SCRATCH_DIR takes the
# stream, the driver binary and the replay output; nothing of libCacheSim enters the repository.
set -euo pipefail
ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
lcs="$(cd "${1:?usage: tools/libcachesim-compare.sh LIBCACHESIM_DIR SCRATCH_DIR}" && pwd)"
mkdir -p "${2:?usage: tools/libcachesim-compare.sh LIBCACHESIM_DIR SCRATCH_DIR}"
scratch="$(cd "$2" && pwd)"
[[ -f "$lcs/_build/liblibCacheSim.a" ]] || { echo "no $lcs/_build/liblibCacheSim.a: build libCacheSim first (see above)" >&2; exit 2; }
cd "$ROOT"
capacities=1000,4000,16000
stream="$scratch/mooncake.oracleGeneral.bin"
python3 - "$stream" <<'PY'
import json, struct, sys
with open("data/mooncake_synthetic_trace.jsonl") as trace, open(sys.argv[1], "wb") as out:
    for line in trace:
        request = json.loads(line)
        for block in request["hash_ids"]:
            out.write(struct.pack("<IQIq", request["timestamp"] // 1000, block, 1, -1))
PY
gcc -O2 -c "$ROOT/tools/libcachesim/exact_misses.c" -o "$scratch/exact_misses.o" -I"$lcs/libCacheSim/include" \
  -I"$lcs/_build/libCacheSim/include" $(pkg-config --cflags glib-2.0)
g++ -O2 -o "$scratch/exact_misses" "$scratch/exact_misses.o" "$lcs/_build/liblibCacheSim.a" \
  $(pkg-config --libs glib-2.0) -lzstd -lm -lpthread -ldl 2>/dev/null
commit="$(git -C "$lcs" rev-parse HEAD 2>/dev/null || cat "$lcs/COMMIT" 2>/dev/null || echo unknown)"
# tierlab label | libCacheSim algorithm | its parameters
pairs=(
  "clock|clock|n-bit-counter=1" "clock:bits=2|clock|n-bit-counter=2" "clock:bits=3|clock|n-bit-counter=3"
  "lfuda|lfuda|" "gdsf|gdsf|" "lirs|lirs|" "lecar|lecar|" "lecar:seed=2|lecar|" "lecar:seed=3|lecar|"
)
policies="$(printf '%s\n' "${pairs[@]}" | cut -d'|' -f1 | paste -sd, -)"
./tierlab replay --format oracle-general --trace "$stream" --policies "$policies" --capacities "$capacities" \
  --out "$scratch/replay" > "$scratch/replay.log"
: > "$scratch/libcachesim.csv"
for pair in "${pairs[@]}"; do
  IFS='|' read -r label algo params <<< "$pair"
  for size in ${capacities//,/ }; do
    # A crash (libCacheSim's LFUDA at this commit segfaults at some sizes) is recorded, not fatal.
    if line="$("$scratch/exact_misses" "$stream" "$algo" "$size" ${params:+"$params"} 2>/dev/null)"; then
      echo "$label,$line" >> "$scratch/libcachesim.csv"
    else
      echo "$label,$algo,$params,$size,,crashed (exit $?)" >> "$scratch/libcachesim.csv"
    fi
  done
done
python3 - "$scratch/replay/miss-ratio.csv" "$scratch/libcachesim.csv" "$commit" docs/libcachesim-comparison.csv <<'PY'
import csv, sys
ours = {(row["policy"], row["capacity_blocks"]): row for row in csv.DictReader(open(sys.argv[1]))}
with open(sys.argv[4], "w", newline="") as out:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["tierlab_policy", "libcachesim_algorithm", "libcachesim_params", "libcachesim_commit",
                     "capacity_blocks", "references", "tierlab_misses", "libcachesim_misses", "miss_difference",
                     "tierlab_miss_ratio", "libcachesim_miss_ratio", "libcachesim_note"])
    for label, algo, params, size, hits, misses in csv.reader(open(sys.argv[2])):
        row = ours[(label, size)]
        references = int(row["references"])
        crashed = hits == ""
        theirs = None if crashed else int(misses)
        writer.writerow([label, algo, params, sys.argv[3], size, references, row["misses"],
                         "" if crashed else theirs, "" if crashed else int(row["misses"]) - theirs,
                         "%.6f" % (int(row["misses"]) / references),
                         "" if crashed else "%.6f" % (theirs / references), misses if crashed else ""])
PY
echo "wrote docs/libcachesim-comparison.csv (libCacheSim $commit)"
