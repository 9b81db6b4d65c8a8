#!/usr/bin/env python3
"""Times each optimized kernel (v2) with kbench and the same operation in PyTorch, on the GPU present, and
prints a table: op, shape, kbench median, PyTorch median, ratio, fraction of the copy bandwidth.

    studies/compare-pytorch.py [--build build/nvidia-native] [--out build/reports]

kbench runs each test program's perf mode on its large shape (cold caches, adaptive sampling) and writes
JSON; PyTorch is timed with triton.testing.do_bench (median; it also flushes the cache before each call).
A ratio above 1 means kbench's v2 is faster. Where v2 is under 80% of the copy bandwidth, the table's
last columns give the bytes that must move and the measured time.
"""
import argparse
import json
import os
import re
import subprocess
import sys

import torch
import triton.testing

p = argparse.ArgumentParser()
p.add_argument("--build", default="build/nvidia-native")
p.add_argument("--out", default="build/reports")
args = p.parse_args()
os.makedirs(args.out, exist_ok=True)
dev = "cuda"
torch.manual_seed(0)


def kbench(program, case_filter):
    """Runs one case of a kbench program in perf mode; returns its JSON case record."""
    stem = f"{program}.{re.sub(r'[^A-Za-z0-9]+', '_', case_filter)}"  # a program can hold several cases
    path = os.path.join(args.out, f"{stem}.perf.json")
    cmd = [os.path.join(args.build, "tests", program), "perf", "--json", path,
           f"--benchmark_filter={case_filter}"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    with open(os.path.join(args.out, f"{stem}.perf.log"), "w") as log:
        log.write(run.stdout + run.stderr)
    doc = json.load(open(path))
    cases = [c for c in doc["cases"] if c["timing"] is not None]
    if run.returncode != 0 or not cases:
        raise RuntimeError(f"{' '.join(cmd)} failed ({run.returncode}): {run.stdout[-2000:]}{run.stderr[-2000:]}")
    return doc, cases[0]


def median_ms(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


def rms_norm(x, w, eps=1e-6):
    return torch.nn.functional.rms_norm(x, (x.shape[-1],), w, eps)


def rope_neox(q, k, pos, cos, sin):
    c, s = cos[pos][:, None, :], sin[pos][:, None, :]
    for t in (q, k):
        half = t.shape[-1] // 2
        a, b = t[..., :half].float(), t[..., half:].float()
        t.copy_(torch.cat((a * c - b * s, b * c + a * s), dim=-1).to(t.dtype))


def rope_gptj(q, k, pos, cos, sin):
    c, s = cos[pos][:, None, :], sin[pos][:, None, :]
    for t in (q, k):
        a, b = t[..., 0::2].float(), t[..., 1::2].float()
        t.copy_(torch.stack((a * c - b * s, b * c + a * s), dim=-1).flatten(-2).to(t.dtype))


def quant(x, qmax, dtype):
    scale = x.abs().amax(dim=-1, keepdim=True).float() / qmax
    q = x.float() / scale
    if dtype == torch.int8:
        q = q.round().clamp(-qmax, qmax)
    return q.to(dtype), scale


def h(*shape, dtype=torch.float16, lo=-1.0, hi=1.0):
    return (torch.rand(*shape, device=dev, dtype=torch.float32) * (hi - lo) + lo).to(dtype)


R, C = 16384, 8192
ops = []  # (label, program, kbench filter, torch callable)
x, w = h(R, C, lo=-2, hi=2), h(C, lo=0.5, hi=1.5)
ops.append(("rmsnorm fp16", "rmsnorm_test", "rmsnorm/rows=16384/cols=8192", lambda: rms_norm(x, w)))
res = h(R, C)


def add_rms():
    hsum = x + res
    res.copy_(hsum)
    return rms_norm(hsum, w)


ops.append(("add+rmsnorm fp16", "add_rmsnorm_test", "add_rmsnorm_fp16/rows=16384/cols=8192", add_rms))
xb, resb, wb = x.bfloat16(), res.bfloat16(), w.bfloat16()


def add_rms_bf16():
    hsum = xb + resb
    resb.copy_(hsum)
    return rms_norm(hsum, wb)


ops.append(("add+rmsnorm bf16", "add_rmsnorm_test", "add_rmsnorm_bf16/rows=16384/cols=8192", add_rms_bf16))
sx = torch.randn(4096, 32768, device=dev).mul(4).add(100).half()
ops.append(("softmax fp16", "softmax_test", "rows=4096/cols=32768", lambda: torch.softmax(sx, dim=-1)))
W, xv = h(28672, 8192), h(8192)
ops.append(("gemv fp16", "gemv_test", "n=28672/k=8192", lambda: torch.mv(W, xv)))
ops.append(("gemv fp16 (4096 x 14336)", "gemv_test", "n=14336/k=4096", (lambda W2, x2: (lambda: torch.mv(W2, x2)))(h(14336, 4096), h(4096))))
big = torch.rand(1 << 28, device=dev) + 0.5
ops.append(("reduce_sum fp32", "reduce_sum_test", "reduce_sum<2>/n=268435456", lambda: big.sum()))
T, HQ, HK, D = 16384, 32, 8, 128
q, k = h(T, HQ, D), h(T, HK, D)
pos = torch.randint(0, 4096, (T,), device=dev, dtype=torch.int32)
cos, sin = torch.rand(4096, D // 2, device=dev), torch.rand(4096, D // 2, device=dev)
ops.append(("rope neox fp16", "rope_test", "rope_fp16/tokens=16384", lambda: rope_neox(q, k, pos, cos, sin)))
qb, kb = q.bfloat16(), k.bfloat16()
ops.append(("rope gptj bf16", "rope_test", "rope_bf16/tokens=16384", lambda: rope_gptj(qb, kb, pos, cos, sin)))
qx = torch.randn(R, C, device=dev).mul(2).half()
ops.append(("quant int8", "quant_int8_test", "rows=16384/cols=8192", lambda: quant(qx, 127.0, torch.int8)))
ops.append(("quant fp8 e4m3", "quant_fp8_test", "rows=16384/cols=8192", lambda: quant(qx, 448.0, torch.float8_e4m3fn)))
logits = torch.randn(512, 128256, device=dev) * 4
ops.append(("argmax fp32", "argmax_test", "argmax_fp32/batch=512/vocab=128256", lambda: torch.argmax(logits, dim=-1)))
logits16 = (torch.rand(1024, 128256, device=dev) * 16 - 8).half()
ops.append(("argmax fp16", "argmax_test", "argmax_fp16/batch=1024/vocab=128256", lambda: torch.argmax(logits16, dim=-1)))

rows = []
for label, program, case_filter, fn in ops:
    try:
        doc, case = kbench(program, case_filter)
    except Exception as e:  # report and go on: one failure must not hide the rest
        print(f"{label}: kbench failed: {e}", file=sys.stderr)
        rows.append((label, case_filter, None, None, None, None, None, None, "kbench failed"))
        continue
    t = case["timing"]
    kb_ms = t["optimized"]["median"] * 1e3
    torch_ms = median_ms(fn)
    copy = doc["copy_bandwidth"]["bytes_per_second"]
    nbytes = t["work"]["bytes"]
    frac = nbytes / (kb_ms * 1e-3) / copy
    shape = " ".join(f"{k}={v}" for k, v in case["shape"].items())
    rows.append((label, shape, kb_ms, torch_ms, torch_ms / kb_ms, frac, nbytes, t["mode"], case["verdict"]))

print(f"\nkbench v2 against PyTorch {torch.__version__} on {torch.cuda.get_device_name()} "
      f"(copy bandwidth {doc['copy_bandwidth']['bytes_per_second'] / 1e12:.2f} TB/s, read + write)")
print(f"{'op':<26} {'shape':<52} {'kbench ms':>10} {'torch ms':>10} {'ratio':>7} {'of copy':>8}  {'bytes':>12} verdict")
for label, shape, kb, th, ratio, frac, nbytes, mode, verdict in rows:
    if kb is None:
        print(f"{label:<26} {shape:<52} {'-':>10} {'-':>10} {'-':>7} {'-':>8}  {'-':>12} {verdict}")
        continue
    print(f"{label:<26} {shape:<52} {kb:>10.4f} {th:>10.4f} {ratio:>7.2f} {100 * frac:>7.1f}%  {nbytes:>12.0f} {verdict} ({mode})")
with open(os.path.join(args.out, "compare-pytorch.json"), "w") as f:
    json.dump(rows, f, indent=1)
