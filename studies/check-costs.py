#!/usr/bin/env python3
"""Where the main job's checks and timings spend their host seconds, from its results documents.

    studies/check-costs.py [<json folder>] [--configure <trace>]   (default folder: build/reports/json)

Reads every <program>.<mode>.json a run of `scripts/run.sh` wrote (KBENCH_JSON) and prints, for the
correctness and the perf documents apart: each step's seconds summed over every case, shape and run
(`stage_seconds` of each correctness run; of each perf case's timing), what the cases spent outside those
steps, and the cases that cost most in each step. With --configure, also the slowest commands of a CMake
configure step's trace (`KBENCH_CONFIGURE_PROFILE=1 scripts/run.sh` writes <build>.configure.trace.json).
Needs no GPU to read; the documents come from one.
"""
import collections
import glob
import json
import os
import sys


def documents(folder):
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as f:
            try:
                doc = json.load(f)
            except json.JSONDecodeError as e:
                sys.exit(f"check-costs: {path}: not JSON ({e})")
        if not isinstance(doc, dict) or "cases" not in doc or "mode" not in doc:
            continue  # gpus.json and the like
        yield os.path.basename(path).split(".")[0], doc


def case_label(program, case):
    shape = ",".join(f"{k}={v}" for k, v in (case.get("shape") or {}).items())
    return f"{program}:{case.get('case')}[{shape}]"


def step_seconds(doc, program):
    """{step: seconds} summed, {step: [(seconds, case)]}, the cases' wall, the ceilings' seconds."""
    steps, by_case = collections.Counter(), collections.defaultdict(list)
    wall = 0.0
    for case in doc["cases"]:
        wall += case.get("wall_seconds") or 0.0
        here = collections.Counter()
        if doc["mode"] == "perf" and case.get("timing"):
            here.update(case["timing"].get("stage_seconds") or {})
        else:
            for check in case.get("checks") or []:
                here.update(check.get("stage_seconds") or {})
        steps.update(here)
        for step, seconds in here.items():
            by_case[step].append((seconds, case_label(program, case)))
    return steps, by_case, wall, doc.get("ceilings_seconds") or 0.0


def report(mode, docs):
    steps, by_case = collections.Counter(), collections.defaultdict(list)
    wall = ceilings = 0.0
    programs = []
    for program, doc in docs:
        s, b, w, c = step_seconds(doc, program)
        steps.update(s)
        for step, cases in b.items():
            by_case[step].extend(cases)
        wall, ceilings = wall + w, ceilings + c
        programs.append((w + c, program))
    if not programs:
        return
    print(f"## {mode}: {len(programs)} programs, cases' wall {wall:.2f} s, device ceilings {ceilings:.2f} s\n")
    print("| step | seconds | of the cases' wall | costliest cases |")
    print("| --- | --- | --- | --- |")
    for step, seconds in steps.most_common():
        top = sorted(by_case[step], reverse=True)[:3]
        named = "; ".join(f"{name} {s:.2f}" for s, name in top if s >= 0.005)
        print(f"| {step} | {seconds:.2f} | {100 * seconds / wall if wall else 0:.0f}% | {named} |")
    outside = wall - sum(steps.values())
    print(f"| (outside the steps: set-up, other shapes' checks, writing) | {outside:.2f} | "
          f"{100 * outside / wall if wall else 0:.0f}% | |")
    print("\nprograms by wall (cases and ceilings): " +
          ", ".join(f"{p} {s:.1f}" for s, p in sorted(programs, reverse=True)) + "\n")


def configure_report(trace_path, shown=12):
    """The slowest commands of a CMake --profiling-format=google-trace file, nested ones included."""
    with open(trace_path) as f:
        events = json.load(f)
    stack, done = [], []
    for e in events:
        if e.get("ph") == "B":
            stack.append(e)
        elif e.get("ph") == "E" and stack:
            begun = stack.pop()
            args = begun.get("args", {})
            done.append(((e["ts"] - begun["ts"]) / 1e6, len(stack), begun["name"],
                         args.get("location", ""), args.get("functionArgs", "")[:60]))
    total = (events[-1]["ts"] - events[0]["ts"]) / 1e6 if events else 0.0
    print(f"## configure: {total:.2f} s traced\n")
    print("| seconds | depth | command | where | arguments |")
    print("| --- | --- | --- | --- | --- |")
    for seconds, depth, name, where, args in sorted(done, reverse=True)[:shown]:
        print(f"| {seconds:.2f} | {depth} | {name} | {os.path.basename(where)} | `{args}` |")
    print()


def main():
    args = sys.argv[1:]
    trace = None
    if "--configure" in args:
        at = args.index("--configure")
        if at + 1 >= len(args):
            sys.exit("check-costs: --configure needs the trace's path")
        trace = args[at + 1]
        del args[at:at + 2]
    if trace:
        configure_report(trace)
    folder = args[0] if args else "build/reports/json"
    if not os.path.isdir(folder):
        sys.exit(f"check-costs: {folder}: no such folder (give the folder of a run's JSON documents)")
    docs = list(documents(folder))
    if not docs:
        sys.exit(f"check-costs: {folder}: no kbench results documents there")
    for mode in ("correctness", "perf"):
        report(mode, [(p, d) for p, d in docs if d["mode"] == mode])


if __name__ == "__main__":
    main()
