#!/usr/bin/env python3
"""Step times of model-shaped forward passes in PyTorch on this GPU, for tierlab's compute model.

For each model shape (layers, hidden size, query and KV heads, head dimension, MLP size, vocabulary;
bf16, random weights), one step is: per layer an RMSNorm, the fused QKV projection, attention of the
step's new tokens over their cached context plus themselves (causal inside the chunk, SDPA with
grouped KV heads), the output projection, an RMSNorm and the SwiGLU MLP; then a final norm and the
LM head over each sequence's last token. One layer's weights and one layer's KV are allocated and run
`layers` times, so the bytes read and the FLOPs per step are the model's (the KV is contiguous per
sequence, not paged). Each shape is captured in a CUDA graph, as an optimised engine runs its steps,
and timed over replays with CUDA events; the median is written.

Writes one CSV per model to OUT_DIR (default .): kind,batch,new_tokens,context_tokens,ms.
Environment: TORCH_STEPS_BUDGET_S (default 240) stops starting new shapes after that many seconds;
TORCH_STEPS_MODELS (default all) names the models to run, comma-separated; TORCH_STEPS_SKIP_DIR names a
folder of earlier torch-steps-MODEL.csv whose shapes are not measured again (to fill in a run's missing rows).
"""
import csv
import os
import sys
import time

import torch
import torch.nn.functional as F

MODELS = {
    # name: layers, hidden, query heads, KV heads, head dim, intermediate, vocab (the models' config.json)
    "qwen3-8b": (36, 4096, 32, 8, 128, 12288, 151936),
    "llama-3.1-8b": (32, 4096, 32, 8, 128, 14336, 128256),
    "qwen3-32b": (64, 5120, 64, 8, 128, 25600, 151936),
}

PREFILL = [(1, n, 0) for n in (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)]
PREFILL += [(1, n, c) for n in (512, 2048) for c in (1024, 2048, 4096, 8192, 16384)]
PREFILL += [(4, 512, 0), (4, 512, 2048), (8, 256, 0)]
DECODE = [(b, 1, c) for b in (1, 4, 16, 64, 128) for c in (256, 1024, 4096, 16384)]

DT = torch.bfloat16
DEV = "cuda"


class Layer:
    def __init__(self, hidden, heads, kv_heads, head_dim, inter):
        scale = 0.02
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, head_dim
        self.w_qkv = torch.randn(hidden, (heads + 2 * kv_heads) * head_dim, device=DEV, dtype=DT) * scale
        self.w_o = torch.randn(heads * head_dim, hidden, device=DEV, dtype=DT) * scale
        self.w_gu = torch.randn(hidden, 2 * inter, device=DEV, dtype=DT) * scale
        self.w_down = torch.randn(inter, hidden, device=DEV, dtype=DT) * scale
        self.norm1 = torch.ones(hidden, device=DEV, dtype=DT)
        self.norm2 = torch.ones(hidden, device=DEV, dtype=DT)


def rms(x, w):
    return F.rms_norm(x, (x.shape[-1],), w, 1e-6)


def forward(layer, layers, x, k_cache, v_cache, batch, new, ctx, mask, lm_head, final_norm):
    h, kvh, d = layer.heads, layer.kv_heads, layer.head_dim
    for _ in range(layers):
        y = rms(x, layer.norm1)
        qkv = y @ layer.w_qkv
        q, k, v = qkv.split([h * d, kvh * d, kvh * d], dim=-1)
        q = q.view(batch, new, h, d).transpose(1, 2)
        # The new tokens' KV written after the cached context, as an engine writes its KV blocks.
        k_cache[:, :, ctx:ctx + new, :] = k.view(batch, new, kvh, d).transpose(1, 2)
        v_cache[:, :, ctx:ctx + new, :] = v.view(batch, new, kvh, d).transpose(1, 2)
        if new == 1:
            a = F.scaled_dot_product_attention(q, k_cache, v_cache, enable_gqa=True)
        elif ctx == 0:
            a = F.scaled_dot_product_attention(q, k_cache, v_cache, is_causal=True, enable_gqa=True)
        else:
            a = F.scaled_dot_product_attention(q, k_cache, v_cache, attn_mask=mask, enable_gqa=True)
        x = x + a.transpose(1, 2).reshape(batch * new, h * d) @ layer.w_o
        y = rms(x, layer.norm2)
        g, u = (y @ layer.w_gu).chunk(2, dim=-1)
        x = x + (F.silu(g) * u) @ layer.w_down
    last = x.view(batch, new, -1)[:, -1, :]
    return rms(last, final_norm) @ lm_head


def time_shape(layer, layers, hidden, vocab, lm_head, final_norm, batch, new, ctx):
    kvh, d = layer.kv_heads, layer.head_dim
    x = torch.randn(batch * new, hidden, device=DEV, dtype=DT) * 0.02
    k_cache = torch.randn(batch, kvh, ctx + new, d, device=DEV, dtype=DT)
    v_cache = torch.randn(batch, kvh, ctx + new, d, device=DEV, dtype=DT)
    mask = None
    if new > 1 and ctx > 0:
        from torch.nn.attention.bias import causal_lower_right
        mask = causal_lower_right(new, ctx + new)
    args = (layer, layers, x, k_cache, v_cache, batch, new, ctx, mask, lm_head, final_norm)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(2):
            forward(*args)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        forward(*args)
    graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(7):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    del graph, k_cache, v_cache, x
    times.sort()
    return times[len(times) // 2]


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    budget_s = float(os.environ.get("TORCH_STEPS_BUDGET_S", "240"))
    t0 = time.time()
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}", flush=True)
    wanted = [m for m in os.environ.get("TORCH_STEPS_MODELS", ",".join(MODELS)).split(",") if m]
    skip_dir = os.environ.get("TORCH_STEPS_SKIP_DIR")
    for name in wanted:
        layers, hidden, heads, kv_heads, head_dim, inter, vocab = MODELS[name]
        done = set()
        earlier = os.path.join(skip_dir, f"torch-steps-{name}.csv") if skip_dir else None
        if earlier and os.path.exists(earlier):
            with open(earlier, newline="") as f:
                done = {(r["kind"], int(r["batch"]), int(r["new_tokens"]), int(r["context_tokens"])) for r in csv.DictReader(f)}
        layer = Layer(hidden, heads, kv_heads, head_dim, inter)
        lm_head = torch.randn(hidden, vocab, device=DEV, dtype=DT) * 0.02
        final_norm = torch.ones(hidden, device=DEV, dtype=DT)
        path = os.path.join(out_dir, f"torch-steps-{name}.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["kind", "batch", "new_tokens", "context_tokens", "ms"])
            for kind, shapes in (("prefill", PREFILL), ("decode", DECODE)):
                for batch, new, ctx in shapes:
                    if (kind, batch, new, ctx) in done:
                        continue
                    if time.time() - t0 > budget_s:
                        print(f"budget of {budget_s:.0f} s spent: stopped before {name} {kind} {batch}x{new}+{ctx}", flush=True)
                        break
                    try:
                        ms = time_shape(layer, layers, hidden, vocab, lm_head, final_norm, batch, new, ctx)
                    except Exception as e:  # an out-of-memory or unsupported shape is reported, not fatal
                        print(f"{name} {kind} {batch}x{new}+{ctx}: failed: {type(e).__name__}: {e}", flush=True)
                        torch.cuda.empty_cache()
                        continue
                    w.writerow([kind, batch, new, ctx, f"{ms:.4f}"])
                    f.flush()
                    print(f"{name} {kind} batch {batch} new {new} ctx {ctx}: {ms:.3f} ms", flush=True)
        del layer, lm_head
        torch.cuda.empty_cache()
    print(f"done in {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
