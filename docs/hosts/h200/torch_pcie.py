"""Cross-check of host<->GPU copy rates with PyTorch, beside tierlab's own `bench pcie`.

Pinned and pageable 1 GiB copies each way, and a burst of 2.25 MiB blocks (one Qwen3-8B KV block of
16 tokens is 2.25 MiB), timed with CUDA events after a warm-up; medians of 5 repeats.
"""
import statistics
import torch

GIB = 1 << 30
BLOCK = 2304 * 1024


def rate(copy, nbytes, repeats=5):
    copy()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        copy()
        end.record()
        torch.cuda.synchronize()
        samples.append(nbytes / (start.elapsed_time(end) / 1e3) / 1e9)
    return statistics.median(samples), min(samples), max(samples)


def main():
    print("device", torch.cuda.get_device_name(0), "torch", torch.__version__, "cuda", torch.version.cuda)
    dev = torch.empty(GIB, dtype=torch.uint8, device="cuda")
    for pinned in (True, False):
        host = torch.empty(GIB, dtype=torch.uint8, pin_memory=pinned)
        host.fill_(7)
        h2d = rate(lambda: dev.copy_(host, non_blocking=True), GIB)
        d2h = rate(lambda: host.copy_(dev, non_blocking=True), GIB)
        label = "pinned" if pinned else "pageable"
        print(f"1GiB {label} H2D GB/s median {h2d[0]:.1f} range {h2d[1]:.1f}-{h2d[2]:.1f}")
        print(f"1GiB {label} D2H GB/s median {d2h[0]:.1f} range {d2h[1]:.1f}-{d2h[2]:.1f}")
    host = torch.empty(GIB, dtype=torch.uint8, pin_memory=True)
    blocks = GIB // BLOCK

    def burst_h2d():
        for i in range(blocks):
            dev[i * BLOCK:(i + 1) * BLOCK].copy_(host[i * BLOCK:(i + 1) * BLOCK], non_blocking=True)

    def burst_d2h():
        for i in range(blocks):
            host[i * BLOCK:(i + 1) * BLOCK].copy_(dev[i * BLOCK:(i + 1) * BLOCK], non_blocking=True)

    h2d = rate(burst_h2d, blocks * BLOCK)
    d2h = rate(burst_d2h, blocks * BLOCK)
    print(f"{blocks}x2.25MiB pinned H2D GB/s median {h2d[0]:.1f} range {h2d[1]:.1f}-{h2d[2]:.1f}")
    print(f"{blocks}x2.25MiB pinned D2H GB/s median {d2h[0]:.1f} range {d2h[1]:.1f}-{d2h[2]:.1f}")


if __name__ == "__main__":
    main()
