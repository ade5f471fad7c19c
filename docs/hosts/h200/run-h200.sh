#!/usr/bin/env bash
# Runs tierlab from its distribution archive on the H200 host (no Java, no Maven there) and packs
# what it measured into $OUT. Usage: run-h200.sh ARCHIVE STEP...   (steps: probe torch torchsteps cudasteps pcie
# quickstart livecuda calibration validate validate-noverify layerwise livebench aot). Each step has its own time limit so the
# tables of the steps before it always come back; every step's output folder is packed at the end.
# Environment: OUT (where the packed runs go, /tmp/out), TIERLAB_H200_WORK (the scratch folder it
# replaces whole, /root/tl), TIERLAB_VALIDATE_GPU (validate's --gpu, cuda; auto for a dry run on a
# host without a GPU, which then runs on host buffers and says why), TIERLAB_VALIDATE_REPEATS
# (validate's --repeats, the file's 3 when unset).
set -uo pipefail
archive="$(readlink -f "$1")"; shift
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-/tmp/out}"; mkdir -p "$out"
work="${TIERLAB_H200_WORK:-/root/tl}"; rm -rf "$work"; mkdir -p "$work/runs"
log="$out/log.txt"
say() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$log"; }
t0=$(date +%s)
tar xJf "$archive" -C "$work" || { say "unpack failed"; exit 1; }
tl="$(ls -d "$work"/tierlab-*/)bin/tierlab"
say "unpacked in $(( $(date +%s) - t0 )) s: $tl"
cd "$work/runs"
step() {  # step NAME LIMIT_S COMMAND...
  local name="$1" limit="$2"; shift 2
  local s=$(date +%s)
  say "step $name (limit ${limit} s): $*"
  timeout "$limit" "$@" >"$work/runs/$name.stdout" 2>"$work/runs/$name.stderr"
  local rc=$?
  say "step $name rc=$rc in $(( $(date +%s) - s )) s"
  tail -n 25 "$work/runs/$name.stdout" "$work/runs/$name.stderr" | tee -a "$log" >/dev/null
}
for s in "$@"; do
  case "$s" in
    probe) step probe 30 bash -c 'nvidia-smi; nproc; free -g; df -h /root /tmp; uname -r; cat /proc/meminfo | head -5; ulimit -l; ls /usr/local/cuda/targets/x86_64-linux/lib/libcudart*' ;;
    torch) step torch 90 python3 "$here/torch_pcie.py" ;;
    # Step times of Qwen3-8B-, Llama-3.1-8B- and Qwen3-32B-shaped forward passes in PyTorch (CUDA graphs), the
    # tables tierlab compute fit reads; TORCH_STEPS_BUDGET_S (240) bounds it.
    torchsteps) mkdir -p "$work/runs/torch-steps"; step torchsteps 330 env PYTHONUNBUFFERED=1 python3 "$here/torch_steps.py" "$work/runs/torch-steps" ;;
    # Step times of tierlab's own CUDA forward pass (compute bench) over the same grid, one CSV per model of
    # CUDA_STEPS_MODELS (default qwen3-8b); CUDA_STEPS_BUDGET_S (150) bounds each model.
    cudasteps) mkdir -p "$work/runs/cuda-steps"; for m in ${CUDA_STEPS_MODELS:-qwen3-8b}; do
        step "cudasteps-$m" $(( ${CUDA_STEPS_BUDGET_S:-150} + 60 )) "$tl" compute bench --model "$m" \
          --budget-s "${CUDA_STEPS_BUDGET_S:-150}" --out "$work/runs/cuda-steps/cuda-steps-$m.csv"; done ;;
    pcie) step pcie 120 "$tl" bench pcie --out "$work/runs/pcie" ;;
    quickstart) step quickstart 90 env -i PATH=/usr/bin:/bin HOME=/root "$tl" run "$work"/tierlab-*/experiments/catalog/quickstart.yaml --quiet --out "$work/runs/quickstart" ;;
    livecuda) step livecuda 180 "$tl" run "$work"/tierlab-*/experiments/catalog/live-cuda.yaml --out "$work/runs/live-cuda" ;;
    calibration) step calibration 330 "$tl" run "$work"/tierlab-*/experiments/catalog/calibration.yaml --out "$work/runs/calibration" ;;
    # The CUDA copy path (live.gpu: cuda, every load verified); five workloads, each with a drive replay before
    # and after its live runs: about 6-8 min on the H200 host with --repeats 2 (TIERLAB_VALIDATE_REPEATS=2).
    validate) step validate 560 "$tl" validate "$(ls -d "$work"/tierlab-*/)docs/hosts/h200/validation-h200.yaml" \
        --gpu "${TIERLAB_VALIDATE_GPU:-cuda}" ${TIERLAB_VALIDATE_REPEATS:+--repeats "$TIERLAB_VALIDATE_REPEATS"} \
        --out "$work/runs/validation" ;;
    validate-noverify) step validate-noverify 560 "$tl" validate "$(ls -d "$work"/tierlab-*/)docs/hosts/h200/validation-h200-noverify.yaml" \
        --gpu "${TIERLAB_VALIDATE_GPU:-cuda}" ${TIERLAB_VALIDATE_REPEATS:+--repeats "$TIERLAB_VALIDATE_REPEATS"} \
        --out "$work/runs/validation-noverify" ;;
    # Layer-wise loading on the CUDA copy path (layerwise-h200.yaml: loadLayerGroups 1 vs 4, warm pass from L1 and
    # from L2, live vs simulated, verification off), then the same file once with verification on (every load
    # checked on the GPU side); about 2-3 min on the H200 host.
    layerwise) step layerwise 420 bash -c 'tl="$0" f="$1" runs="$2" gpu="$3"; v="${f%.yaml}-verify.yaml"
        sed "s/^  verify: false$/  verify: true/; s/^name: layerwise-h200$/name: layerwise-h200-verify/; s/verification off)/verification on)/" "$f" >"$v" &&
        "$tl" validate "$f" --gpu "$gpu" ${TIERLAB_VALIDATE_REPEATS:+--repeats "$TIERLAB_VALIDATE_REPEATS"} --out "$runs/layerwise" &&
        "$tl" validate "$v" --gpu "$gpu" --repeats 1 --out "$runs/layerwise-verify"' \
        "$tl" "$(ls -d "$work"/tierlab-*/)docs/hosts/h200/layerwise-h200.yaml" "$work/runs" "${TIERLAB_VALIDATE_GPU:-cuda}" ;;
    livebench) step livebench 240 "$tl" bench live "$here/live-throughput-h200.yaml" --rounds 3 --dir "$work/runs/livebench-l2" ;;
    aot) step aot 200 bash -c 'for i in 1 2 3; do for mode in on off; do s=$(date +%s%N); TIERLAB_AOT=$mode "$0" run "$1" --quiet --out "$2/aot-$mode-$i" >/dev/null 2>&1; echo "quickstart first run, AOT $mode: $(( ($(date +%s%N) - s) / 1000000 )) ms"; done; done' "$tl" "$(ls -d "$work"/tierlab-*/)experiments/catalog/quickstart.yaml" "$work/scratch" ;;
    *) say "unknown step $s" ;;
  esac
done
# Pack every run folder without bulky raw data (L2 files, per-request tables over 8 MiB).
rm -rf "$work/scratch" "$work/runs/livebench-l2"
cd "$work/runs" && tar czf "$out/runs.tgz" --exclude='*.l2' --exclude='*.bin' --exclude='*.dat' \
  --exclude='l2-run*' $(find . -maxdepth 2 -size +8M -printf "--exclude=%P ") . 2>>"$log"
say "packed $(du -h "$out/runs.tgz" | cut -f1); total $(( $(date +%s) - t0 )) s"
