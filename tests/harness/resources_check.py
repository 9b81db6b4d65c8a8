#!/usr/bin/env python3
"""`<program> resources` against the compiler's own report: compiles a kernel source for one target and
checks that, for every kernel the compiler reports, the program's listing gives the same figures. Fails when
a figure differs or no kernel was compared.
  AMD (--target gfx906): hipcc -Rpass-analysis=kernel-resource-usage; VGPRs, AGPRs, SGPRs, spills, scratch,
    LDS and waves per SIMD. Waves that LDS limits are not compared: compilers differ there (LLVM 15 counts a
    CU's work-groups against one SIMD, LLVM 22 spreads them over its 4 SIMDs, as kbench does).
  NVIDIA (--target sm_90): nvcc --resource-usage (ptxas's report); registers, shared memory and the stack
    (ptxas's cumulative stack size where the kernel calls functions, else its stack frame). ptxas says nothing
    of occupancy.

    resources_check.py --compiler hipcc --target gfx906 --source kernels/softmax/softmax_v2.hip \
        --program build/amd/tests/softmax_test [--include include ...] [--flag=-D... ...]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

p = argparse.ArgumentParser()
p.add_argument("--compiler", required=True)
p.add_argument("--target", required=True)
p.add_argument("--source", required=True)
p.add_argument("--program", required=True)
p.add_argument("--include", action="append", default=[])
p.add_argument("--flag", action="append", default=[], help="an extra compiler flag (NVIDIA: HIP's platform macro, ...)")
args = p.parse_args()
nvidia = args.target.startswith("sm_")

with tempfile.TemporaryDirectory() as work:
    if nvidia:
        compile_cmd = [args.compiler, "-x", "cu", "-std=c++17", "-O3", f"-arch={args.target}", "-cubin",
                       "--resource-usage", args.source, "-o", os.path.join(work, "device.cubin"), *args.flag,
                       *[f"-I{i}" for i in args.include]]
    else:
        compile_cmd = [args.compiler, "-x", "hip", "-std=c++17", "-O3", f"--offload-arch={args.target}", "--offload-device-only",
                       "-c", args.source, "-o", os.path.join(work, "device.o"), "-Rpass-analysis=kernel-resource-usage",
                       *args.flag, *[f"-I{i}" for i in args.include]]
    built = subprocess.run(compile_cmd, capture_output=True, text=True)
    if built.returncode != 0:
        sys.exit(f"resources_check: the compile failed:\n{' '.join(compile_cmd)}\n{built.stderr[-3000:]}")
    listing_path = os.path.join(work, "resources.json")
    listed = subprocess.run([args.program, "resources", "--json", listing_path], capture_output=True, text=True)
    if listed.returncode != 0:
        sys.exit(f"resources_check: {args.program} resources failed ({listed.returncode}):\n{listed.stderr[-3000:]}")
    listing = json.load(open(listing_path))

base = lambda target: target.split(":")[0]
listed_kernels = {k["symbol"]: k for k in listing["kernels"] if base(k["target"]) == base(args.target)}
reported = {}
if nvidia:
    # ptxas: "Compiling entry function '<symbol>' for 'sm_90'", then "Function properties for <symbol>" with
    # "<n> bytes stack frame, ...", then "Used <n> registers, ..., <n> bytes smem, ..., <n> bytes cumulative
    # stack size" (the last two only when not 0).
    name = None
    for line in (built.stdout + built.stderr).splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            name = m.group(1)
            reported[name] = {"registers": "0", "shared_bytes": "0", "frame": "0"}
            continue
        if name is None:
            continue
        if (m := re.search(r"(\d+) bytes stack frame", line)) and name in reported and "used" not in reported[name]:
            reported[name]["frame"] = m.group(1)
        if m := re.search(r"Used (\d+) registers", line):
            reported[name]["used"] = True
            reported[name]["registers"] = m.group(1)
            if s := re.search(r"(\d+) bytes smem", line):
                reported[name]["shared_bytes"] = s.group(1)
            c = re.search(r"(\d+) bytes cumulative stack size", line)
            reported[name]["stack_bytes"] = str(max(int(reported[name]["frame"]), int(c.group(1)) if c else 0))
            name = None
    figures = [("registers", "registers"), ("shared_bytes", "shared_bytes"), ("stack_bytes", "stack_bytes")]
else:
    # The compiler's remarks: "Function Name: <symbol>", then "<figure>: <value>" lines for it.
    name = None
    for line in built.stderr.splitlines():
        m = re.search(r"remark:\s+(.+?):\s+(\S+)\s+\[-Rpass-analysis=kernel-resource-usage\]", line)
        if not m:
            continue
        key, value = m.group(1).strip(), m.group(2)
        if key == "Function Name":
            name = value
            reported[name] = {}
        elif name is not None:
            reported[name][key] = value
    # LLVM 15 says "SGPRs", LLVM 22 (HIP 7.2) "TotalSGPRs".
    figures = [("VGPRs", "vgprs"), ("AGPRs", "agprs"), ("SGPRs", "sgprs"), ("TotalSGPRs", "sgprs"), ("VGPRs Spill", "vgpr_spills"),
               ("SGPRs Spill", "sgpr_spills"), ("ScratchSize [bytes/lane]", "scratch_bytes"),
               ("LDS Size [bytes/block]", "lds_bytes"), ("Occupancy [waves/SIMD]", "waves_per_simd")]
problems, compared = [], 0
for symbol, figures_of in reported.items():
    kernel = listed_kernels.get(symbol)
    if kernel is None:
        problems.append(f"{symbol}: reported by the compiler, not listed by the program for {args.target}")
        continue
    compared += 1
    for remark, field in figures:
        if field == "waves_per_simd" and kernel["limited_by"] == "LDS":
            continue
        if remark in figures_of and str(kernel[field]) != figures_of[remark]:
            problems.append(f"{kernel['name']} ({args.target}): {remark} {figures_of[remark]} by the compiler, "
                            f"{kernel[field]} listed")
print(f"resources_check: {compared} kernels of {args.source} compared for {args.target}")
if problems or compared == 0:
    sys.exit("\n".join(problems) or "resources_check: no kernel compared")
