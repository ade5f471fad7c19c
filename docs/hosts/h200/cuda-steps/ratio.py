"""Speed of tierlab's CUDA forward pass against PyTorch's on the same machine, per step shape.

usage: python3 ratio.py TIERLAB.csv TORCH.csv   (both: kind,batch,new_tokens,context_tokens,ms)
speed ratio = torch ms / tierlab ms (1.0 = as fast as PyTorch; the target is >= 0.67 per step kind).
"""
import csv
import statistics
import sys


def load(path):
    with open(path, newline="") as f:
        return {(r["kind"], int(r["batch"]), int(r["new_tokens"]), int(r["context_tokens"])): float(r["ms"])
                for r in csv.DictReader(f)}


def step_kind(shape):
    kind, _, _, context = shape
    if kind == "decode":
        return "decode"
    return "prefill" if context == 0 else "prefill over cached context"


def main(tierlab_csv, torch_csv):
    tierlab, torch = load(tierlab_csv), load(torch_csv)
    by_kind = {}
    print("kind,batch,new_tokens,context_tokens,tierlab_ms,torch_ms,speed_ratio")
    for shape in sorted(tierlab, key=lambda s: (s[0], s[3] > 0, s[1], s[2], s[3])):
        if shape not in torch:
            continue
        ratio = torch[shape] / tierlab[shape]
        by_kind.setdefault(step_kind(shape), []).append(ratio)
        print(",".join(map(str, shape)) + f",{tierlab[shape]:.3f},{torch[shape]:.3f},{ratio:.3f}")
    print()
    print("step kind,shapes,median ratio,min ratio,max ratio,shapes below 0.67")
    for kind, ratios in by_kind.items():
        below = sum(1 for r in ratios if r < 0.67)
        print(f"{kind},{len(ratios)},{statistics.median(ratios):.2f},{min(ratios):.2f},{max(ratios):.2f},{below}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
