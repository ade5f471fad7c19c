#!/usr/bin/env python3
"""Fits tierlab's compute kinds to the PyTorch step tables measured on the H200 host and writes how well
each predicts the rows it was not fitted on (docs/compute.md, "Fitted to the H200's steps").

Two checks, each for the roofline kind (max and sum forms, the model before the kernel form) and the
kernel-roofline kind:
- extrapolation: fitted on qwen3-8b's prefills without cached context of at most 2,048 new tokens and
  its decodes over at most 1,024 context tokens; every qwen3-8b row predicted.
- cross-model: fitted on every qwen3-8b row; every row of the other models' tables predicted with
  `compute predict --model OTHER`.
Reads whatever rows the tables under ../torch-steps/ hold. Writes into this folder: train-qwen3-8b.csv,
profile-*.yaml and fit-*.txt (the fits), predict-*.csv (compute predict's output), errors.csv (every row)
and summary.csv (per group: rows, median and p90 of |error|, median signed error). Overwrites them.
Run from anywhere: python3 docs/hosts/h200/compute-fit/regenerate.py
"""
import csv
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
STEPS = os.path.join(HERE, "..", "torch-steps")
FITTED_MODEL = "qwen3-8b"
OTHER_MODELS = ["llama-3.1-8b", "qwen3-32b"]
GPU = "h200"
# (name in file names, compute fit arguments)
KINDS = [
    ("roofline-max", ["--kind", "roofline", "--form", "max"]),
    ("roofline-sum", ["--kind", "roofline", "--form", "sum"]),
    ("kernel-roofline", ["--kind", "kernel-roofline"]),
]
COLUMNS = ["kind", "batch", "new_tokens", "context_tokens", "ms"]


def read(path):
    with open(path, newline="") as f:
        return [{k: r[k] for k in COLUMNS} for r in csv.DictReader(f)]


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def fitted_on(row):
    """The extrapolation fit's rows: prefills of <= 2,048 new tokens without context, decodes over <= 1,024."""
    new, ctx = int(row["new_tokens"]) * int(row["batch"]), int(row["context_tokens"])
    if row["kind"] == "prefill":
        return ctx == 0 and new <= 2048
    return ctx <= 1024


def group(row):
    """The acceptance group of a qwen3-8b row in the extrapolation check."""
    if fitted_on(row):
        return "fitted"
    new, ctx = int(row["new_tokens"]), int(row["context_tokens"])
    if row["kind"] == "decode":
        return "decode over 4-16k context" if 4096 <= ctx <= 16384 else "decode, other"
    if ctx == 0:
        return "prefill of 4-32k tokens" if 4096 <= new <= 32768 else "prefill, other"
    return "prefill over 2-16k cached" if 2048 <= ctx <= 16384 else "prefill over 1k cached"


def tierlab(args, out_path=None):
    result = subprocess.run([os.path.join(ROOT, "tierlab")] + args, cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"tierlab {' '.join(args)} failed ({result.returncode}):\n{result.stderr}")
    if out_path:
        with open(out_path, "w") as f:
            f.write(result.stdout)
            f.write(result.stderr)
    return result.stdout


def fit(name, args, table, label):
    profile = os.path.join(HERE, f"profile-{name}-{label}.yaml")
    if os.path.exists(profile):
        os.remove(profile)
    tierlab(["compute", "fit", table, "--model", FITTED_MODEL, "--gpu", GPU] + args + ["--out", profile],
            os.path.join(HERE, f"fit-{name}-{label}.txt"))
    return profile


def predict(name, profile, model, shapes, label):
    text = tierlab(["compute", "predict", "--profile", profile, "--model", model, "--shapes", shapes])
    path = os.path.join(HERE, f"predict-{name}-{label}.csv")
    with open(path, "w") as f:
        f.write(text)
    return read(path)


def main():
    qwen_table = os.path.join(STEPS, f"torch-steps-{FITTED_MODEL}.csv")
    qwen = read(qwen_table)
    train = os.path.join(HERE, f"train-{FITTED_MODEL}.csv")
    write(train, [r for r in qwen if fitted_on(r)])
    errors = []
    for name, args in KINDS:
        checks = [("extrapolation", fit(name, args, train, "train"), FITTED_MODEL, qwen_table, qwen, group)]
        everything = fit(name, args, qwen_table, "all")
        for other in OTHER_MODELS:
            table = os.path.join(STEPS, f"torch-steps-{other}.csv")
            rows = read(table)
            if rows:
                checks.append(("cross-model", everything, other, table, rows, lambda r, m=other: f"{m}, every row"))
        for check, profile, model, table, rows, group_of in checks:
            predicted = predict(name, profile, model, table, f"{check}-{model}")
            for measured, guess in zip(rows, predicted):
                ms, p = float(measured["ms"]), float(guess["ms"])
                errors.append({"compute_kind": name, "check": check, "model": model, "group": group_of(measured),
                               **{k: measured[k] for k in COLUMNS[:4]}, "measured_ms": measured["ms"],
                               "predicted_ms": guess["ms"], "error_percent": f"{100 * (p - ms) / ms:.2f}"})
    fields = ["compute_kind", "check", "model", "group"] + COLUMNS[:4] + ["measured_ms", "predicted_ms", "error_percent"]
    with open(os.path.join(HERE, "errors.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(errors)
    summary = {}
    for e in errors:
        summary.setdefault((e["compute_kind"], e["check"], e["model"], e["group"]), []).append(float(e["error_percent"]))
    with open(os.path.join(HERE, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["compute_kind", "check", "model", "group", "rows", "median_abs_error_percent",
                    "p90_abs_error_percent", "median_error_percent"])
        for key, values in summary.items():
            absolute = [abs(v) for v in values]
            # Linear between order statistics, as 'tierlab compute fit' reports its own errors.
            p90 = statistics.quantiles(absolute, n=10, method="inclusive")[8] if len(absolute) > 1 else absolute[0]
            w.writerow(list(key) + [len(values), f"{statistics.median(absolute):.2f}", f"{p90:.2f}",
                                    f"{statistics.median(values):.2f}"])
    with open(os.path.join(HERE, "summary.csv")) as f:
        print(f.read(), end="")


if __name__ == "__main__":
    main()
