#!/bin/bash
# one device call: CUDA forward-pass step times beside PyTorch's on the same machine
exec > >(tee "$OUT/run-log.txt") 2>&1
w=/root/tl; mkdir -p $w; t0=$(date +%s)
tar xJf target/dist/tierlab-*.tar.xz -C $w || exit 1
tl="$(ls -d $w/tierlab-*/)bin/tierlab"; echo "== unpacked $(( $(date +%s)-t0 )) s"
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
mkdir -p $OUT/cuda-steps $OUT/torch-steps
echo "== $(date +%T) compute bench qwen3-8b"; timeout 210 $tl compute bench --model qwen3-8b --out $OUT/cuda-steps/cuda-steps-qwen3-8b.csv --budget-s 110; echo "rc=$?"
echo "== $(date +%T) torch_steps qwen3-8b"; TORCH_STEPS_MODELS=qwen3-8b TORCH_STEPS_BUDGET_S=80 PYTHONUNBUFFERED=1 timeout 110 python3 docs/hosts/h200/torch_steps.py $OUT/torch-steps; echo "rc=$?"
echo "== $(date +%T) compute bench llama-3.1-8b"; timeout 70 $tl compute bench --model llama-3.1-8b --out $OUT/cuda-steps/cuda-steps-llama-3.1-8b.csv --budget-s 40; echo "rc=$?"
echo "== $(date +%T) compute bench qwen3-32b"; timeout 70 $tl compute bench --model qwen3-32b --out $OUT/cuda-steps/cuda-steps-qwen3-32b.csv --budget-s 40; echo "rc=$?"
echo "== $(date +%T) done"
