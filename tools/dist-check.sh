#!/usr/bin/env bash
# The distribution archive's test (docs/distribution.md; .ci/run calls it after './tierlab dist'):
# unpacks ARCHIVE into an empty folder and runs it as a bare host would, with no Java and no Maven
# reachable (env -i, a PATH holding only the few tools bin/tierlab uses, JAVA_HOME unset) and, where
# this machine allows it (root, unshare), with the host's fonts hidden, as on the GPU host that has
# none. Then it checks that the quickstart wrote its tables and charts, that run.json says it ran
# from the archive and which commit that was built from, that replay and hunt run, that 'bench
# engine' runs (tiny settings; the bare PATH has no fio, so the engine side alone, as on the GPU
# host) and writes its tables, and that a tiny 'validate' (the small variant the tests use: two
# tiny workloads on a given profile, live and simulated) writes its comparison. Exit status 0 when
# everything holds; the first failure is one line on stderr.
#
# usage: tools/dist-check.sh ARCHIVE [WORK_DIR]
set -euo pipefail

ARCHIVE="$(readlink -f "$1")"
WORK="${2:-$(mktemp -d /tmp/tierlab-dist-check.XXXXXX)}"
fail() { echo "dist-check: FAILED: $*" >&2; exit 1; }
say() { echo "dist-check: $*" >&2; }

[[ -f "$ARCHIVE" ]] || fail "no archive at $1"
rm -rf "$WORK"
mkdir -p "$WORK/host/bin" "$WORK/unpacked"
tar -xJf "$ARCHIVE" -C "$WORK/unpacked"
HOME_DIR="$(find "$WORK/unpacked" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
[[ -x "$HOME_DIR/bin/tierlab" ]] || fail "the archive has no executable bin/tierlab"

# The bare host's PATH: only what bin/tierlab itself calls. No java, no mvn.
for tool in bash dirname readlink cat; do
  ln -s "$(command -v "$tool")" "$WORK/host/bin/$tool"
done
if env -i PATH="$WORK/host/bin" bash -c 'command -v java || command -v mvn' >/dev/null 2>&1; then
  fail "java or mvn is reachable on the bare PATH $WORK/host/bin"
fi

# Runs bin/tierlab ARGS... in $WORK/calls as a bare host: env -i (so no JAVA_HOME, no MAVEN_OPTS),
# fonts hidden when a private mount namespace is allowed.
HIDE_FONTS=0
if (( EUID == 0 )) && command -v unshare >/dev/null 2>&1 && unshare -m true 2>/dev/null; then
  HIDE_FONTS=1
fi
mkdir -p "$WORK/calls"
bare() {
  local inner="cd '$WORK/calls' && exec env -i PATH='$WORK/host/bin' HOME='$WORK/calls' '$HOME_DIR/bin/tierlab'"
  local arg
  for arg in "$@"; do inner+=" '$arg'"; done
  if (( HIDE_FONTS )); then
    local hide=""
    for dir in /usr/share/fonts /usr/local/share/fonts /etc/fonts; do
      [[ -d "$dir" ]] && hide+="mount -t tmpfs none '$dir' && "
    done
    unshare -m bash -c "$hide $inner"
  else
    bash -c "$inner"
  fi
}
if (( HIDE_FONTS )); then
  say "fonts hidden (private mount namespace over /usr/share/fonts and /etc/fonts)"
else
  say "fonts NOT hidden (needs root and unshare); the charts may use the host's fonts"
fi

say "quickstart from $(basename "$ARCHIVE") in $WORK/calls"
started=$SECONDS
bare run "$HOME_DIR/experiments/catalog/quickstart.yaml" --out quickstart --quiet >"$WORK/quickstart.log" 2>&1 \
  || { cat "$WORK/quickstart.log" >&2; fail "the quickstart exited non-zero"; }
say "quickstart done in $(( SECONDS - started )) s"
for file in results.csv requests.csv timeseries.csv summary.json run.json report.md experiment.yaml \
    warm-l1-hit-ratio.png warm-l1-hit-ratio.svg warm-elapsed.png warm-elapsed.svg; do
  [[ -s "$WORK/calls/quickstart/$file" ]] || fail "the quickstart did not write $file"
done
# PNG magic number: a real image, not an empty or error file.
[[ "$(head -c 4 "$WORK/calls/quickstart/warm-l1-hit-ratio.png" | od -An -c | tr -d ' ')" == "211PNG" ]] \
  || fail "warm-l1-hit-ratio.png is not a PNG"
[[ "$(wc -l <"$WORK/calls/quickstart/results.csv")" -eq 16 ]] || fail "results.csv should have 15 runs and a header"
grep -q '"from" : "archive ' "$WORK/calls/quickstart/run.json" || fail "run.json does not say it ran from the archive"
# The build-info jar is STORED (uncompressed), so its properties can be read straight from its bytes.
baked="$(grep -a '^gitCommit=' "$HOME_DIR/lib/tierlab-build-info.jar" | head -n 1 | sed 's/^gitCommit=//' | tr -d '\r' || true)"
if [[ -n "$baked" ]]; then
  grep -q "\"gitCommit\" : \"$baked\"" "$WORK/calls/quickstart/run.json" || fail "run.json does not carry the baked commit $baked"
fi
if grep -q "not drawn" "$WORK/quickstart.log" "$WORK/calls/quickstart/report.md"; then
  fail "a chart was not drawn: $(grep -h 'not drawn' "$WORK/quickstart.log" | head -n 1)"
fi

say "replay"
bare replay --out replay --capacities 1000,8000 --policies lru,s3-fifo >"$WORK/replay.log" 2>&1 \
  || { cat "$WORK/replay.log" >&2; fail "replay exited non-zero"; }
for file in miss-ratio.csv miss-ratio.png miss-ratio.svg report.md; do
  [[ -s "$WORK/calls/replay/$file" ]] || fail "replay did not write $file"
done

say "hunt (6 s)"
bare hunt --minutes 0.1 --out hunt >"$WORK/hunt.log" 2>&1 || { cat "$WORK/hunt.log" >&2; fail "hunt exited non-zero"; }

say "bench engine (one case, one round of 1 s, a 64 MiB file; no fio on the bare PATH)"
bare bench engine --rounds 1 --seconds 1 --size-mib 64 --cases randread-128k-qd8 >"$WORK/bench.log" 2>&1 \
  || { cat "$WORK/bench.log" >&2; fail "bench engine exited non-zero"; }
grep -q "fio not found" "$WORK/bench.log" || fail "bench engine did not say that fio was not found: $(head -n 3 "$WORK/bench.log")"
for file in engine-vs-fio.md engine-vs-fio.csv engine-vs-fio-rounds.csv engine-vs-fio-batching.csv; do
  [[ -s "$WORK/calls/target/bench/$file" ]] || fail "bench engine did not write target/bench/$file"
done

say "validate (experiments/catalog/validation-small.yaml: two tiny workloads, one live run each, on a given profile)"
bare validate "$HOME_DIR/experiments/catalog/validation-small.yaml" --repeats 1 --out validation >"$WORK/validate.log" 2>&1 \
  || { cat "$WORK/validate.log" >&2; fail "validate exited non-zero"; }
for file in validation.csv decisions.csv fitted-profile.yaml report.md ttft-scatter-prefill.png ttft-cdf-closed-loop.png; do
  [[ -s "$WORK/calls/validation/$file" ]] || fail "validate did not write $file"
done
grep -q "GPU copies host buffers: " "$WORK/calls/validation/report.md" || grep -q "GPU copies cuda: " "$WORK/calls/validation/report.md" \
  || fail "validate's report does not say which GPU copy path ran"

echo "dist-check: OK: quickstart (tables, charts, run.json from the archive), replay, hunt, bench engine and validate ran from $(basename "$ARCHIVE") with no Java or Maven on PATH$( (( HIDE_FONTS )) && echo " and no host fonts")"
