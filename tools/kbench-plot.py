#!/usr/bin/env python3
"""Plots of kbench perf results (`<program> perf --json PATH`, schema "kbench-results/1"), as PNG files
named for what they show:

  <case>-time.png       a sweep (shapes of one case that differ in one dimension): median time against that
                        dimension, reference and optimized, p10-p90 bars, log-log
  <case>-bandwidth.png  the sweep's GB/s against that dimension, the device's copy bandwidth as a line
  speedups.png          every case and shape: reference / optimized median with its 95% interval
  roofline.png          every case and shape that declares bytes and flops: both sides at their arithmetic
                        intensity and FLOP/s (log-log), a colour per case, under the device's ceilings: the
                        memory bandwidth (the faster of copying and reading) and each measured arithmetic
                        peak the cases use
  baseline.png          with --comparison: current / baseline median time of the optimized kernel per case,
                        with its 95% bootstrap interval, and lines at 1 and at the threshold either way; all
                        as kbench-compare computed them (`kbench-compare OLD.json NEW.json --json PATH`)

    tools/kbench-plot.py [--out DIR] [--comparison COMPARISON.json] RESULTS.json...

Prints the paths it wrote. Exit status: 0, 1 when there is nothing to plot (no case has a timing), 2 on
bad input, 77 without matplotlib (Debian: apt-get install python3-matplotlib).
"""
import argparse
import json
import math
import os
import re
import sys

SCHEMA = "kbench-results/1"
COMPARISON_SCHEMA = "kbench-baseline/1"
# What a median is in each timing mode (json_report.hpp): batch divides a graph of launches by their number.
MEDIAN_MEANING = {"batch": "per launch, back to back", "cold": "one cold launch", "hot": "one hot launch"}
VERDICT_COLOR = {"faster": "tab:green", "slower": "tab:red"}


class BadInput(Exception):
    pass


def number(v):
    """A number as json_report.hpp writes it ("nan", "inf", "-inf" when not finite); None when absent."""
    if v is None:
        return None
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if v in ("nan", "inf", "-inf"):
        return float(v)
    raise BadInput(f"{v!r} is not a number")


def finite(v):
    x = number(v)
    return x if x is not None and math.isfinite(x) else None


def read_document(path, schema, hint=""):
    """The JSON document in `path`, which must be of `schema` and hold a "cases" array."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise BadInput(f"{path}: cannot be read ({e.strerror})")
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: is not JSON ({e})")
    found = doc.get("schema") if isinstance(doc, dict) else None
    if found != schema:
        raise BadInput(f"{path}: is not a {schema} document (schema {found!r}){hint}")
    if not isinstance(doc.get("cases"), list):
        raise BadInput(f"{path}: has no \"cases\" array")
    return doc


def load(path):
    doc = read_document(path, SCHEMA)
    copy = doc.get("copy_bandwidth")
    copy = finite(copy.get("bytes_per_second")) if isinstance(copy, dict) else None
    peaks = {p["type"]: finite(p.get("flops_per_second")) for p in doc.get("compute_peaks") or []
             if isinstance(p, dict) and isinstance(p.get("type"), str)}
    cases = []
    for i, c in enumerate(doc["cases"]):
        ok = (isinstance(c, dict) and isinstance(c.get("case"), str) and isinstance(c.get("shape"), dict)
              and all(isinstance(v, int) for v in c["shape"].values())
              and (c.get("timing") is None or isinstance(c["timing"], dict)))
        if not ok:
            raise BadInput(f"{path}: case number {i} is malformed (needs case, shape {{dim: size}} and timing)")
        cases.append({"case": c["case"], "shape": c["shape"], "verdict": c.get("verdict", ""),
                      "timing": c.get("timing"), "copy": copy, "peaks": peaks, "device": (doc.get("device") or {}).get("name")})
    return cases


def label(c):
    dims = "/".join(f"{k}={v}" for k, v in c["shape"].items())  # as kbench labels a case (report.hpp)
    return f"{c['case']}/{dims}" if dims else c["case"]


def file_name(case_name, what):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", case_name) + f"-{what}.png"


def sweeps(cases):
    """(case name, swept dimension, [(size, case)] by size) for each case timed at shapes differing in one dim."""
    by_name = {}
    for c in cases:
        if c["timing"] is not None:
            by_name.setdefault(c["case"], []).append(c)
    for name, group in by_name.items():
        dims = list(group[0]["shape"])
        if len(group) < 2 or any(list(c["shape"]) != dims for c in group):
            continue
        varying = [d for d in dims if len({c["shape"][d] for c in group}) > 1]
        if len(varying) != 1:
            continue
        points = {}
        for c in group:
            points.setdefault(c["shape"][varying[0]], c)  # the first file's, when several have the shape
        yield name, varying[0], sorted(points.items())


def side_stats(c, side):
    s = c["timing"].get(side)
    if not isinstance(s, dict):
        return None
    median, p10, p90 = finite(s.get("median")), finite(s.get("p10")), finite(s.get("p90"))
    return (median, p10, p90) if median and p10 is not None and p90 is not None else None


def time_label(modes):
    """The y label: what a median is, one line per mode when a sweep mixes them (--timing auto does)."""
    if len(modes) == 1:
        return f"median seconds, {MEDIAN_MEANING.get(modes[0], modes[0])}"
    return "median seconds\n" + "\n".join(f"{m}: {MEDIAN_MEANING.get(m, m)}" for m in modes)


def size_axis(ax, sizes, dim):
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([str(s) for s in sizes], rotation=45 if len(sizes) > 6 else 0)
    ax.minorticks_off()
    ax.set_xlabel(dim)


def plot_time(plt, out, name, dim, points):
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    modes = list(dict.fromkeys(c["timing"].get("mode", "") for _, c in points))
    markers = {m: "os^"[i % 3] for i, m in enumerate(modes)}
    for side, color in (("reference", "tab:gray"), ("optimized", "tab:blue")):
        pts = [(x, c["timing"].get("mode", ""), side_stats(c, side)) for x, c in points]
        pts = [(x, m, s) for x, m, s in pts if s]
        if not pts:
            continue
        ax.plot([x for x, _, _ in pts], [s[0] for _, _, s in pts], color=color, linewidth=1)
        for mode in modes:
            group = [(x, s) for x, m, s in pts if m == mode]
            if group:
                ax.errorbar([x for x, _ in group], [s[0] for _, s in group],
                            yerr=[[s[0] - s[1] for _, s in group], [s[2] - s[0] for _, s in group]],
                            fmt=markers[mode], color=color, capsize=3,
                            label=side if len(modes) == 1 else f"{side}, {mode}")
    ax.set_yscale("log")
    size_axis(ax, [x for x, _ in points], dim)
    ax.set_ylabel(time_label(modes), fontsize=9)
    ax.set_title(f"{name}: time against {dim} (bars: p10 to p90)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return save(fig, plt, os.path.join(out, file_name(name, "time")))


def plot_bandwidth(plt, out, name, dim, points):
    bytes_of = {x: finite(c["timing"].get("work", {}).get("bytes")) for x, c in points}
    if not any(bytes_of.values()):
        return None  # no work model: no bandwidth
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for side, color in (("reference", "tab:gray"), ("optimized", "tab:blue")):
        pts = [(x, bytes_of[x], side_stats(c, side)) for x, c in points]
        pts = [(x, b, s) for x, b, s in pts if b and s]
        if not pts:
            continue
        gbps = [b / s[0] / 1e9 for _, b, s in pts]
        ax.errorbar([x for x, _, _ in pts], gbps,
                    yerr=[[g - b / s[2] / 1e9 for g, (_, b, s) in zip(gbps, pts)],
                          [b / s[1] / 1e9 - g for g, (_, b, s) in zip(gbps, pts)]],
                    fmt="-o", color=color, capsize=3, label=side)
    copy = next((c["copy"] for _, c in points if c["copy"]), None)
    if copy:
        ax.axhline(copy / 1e9, color="tab:red", linestyle="--", label=f"device-to-device copy ({copy / 1e9:.0f} GB/s)")
    size_axis(ax, [x for x, _ in points], dim)
    ax.set_ylim(bottom=0)
    ax.set_ylabel("GB/s (bytes moved / median time)")
    ax.set_title(f"{name}: bandwidth against {dim} (bars: from p90 to p10 time)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return save(fig, plt, os.path.join(out, file_name(name, "bandwidth")))


def interval_chart(plt, rows, xlabel, title, lines):
    """Horizontal bars: rows of (label, value, low, high, color); vertical lines of (x, style, label)."""
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.35 * len(rows)))
    ys = list(range(len(rows)))[::-1]
    for y, (_, v, low, high, color) in zip(ys, rows):
        ax.errorbar([v], [y], xerr=[[v - low], [high - v]], fmt="o", color=color, capsize=3)
    for x, style, text in lines:
        ax.axvline(x, color=style[0], linestyle=style[1], linewidth=1, label=text)
    ax.set_yticks(ys)
    ax.set_yticklabels([r[0] for r in rows], fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(True, axis="x", alpha=0.3)
    if any(text for _, _, text in lines):
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_speedups(plt, out, cases):
    rows = []
    for c in cases:
        t = c["timing"]
        speedup = finite(t.get("speedup")) if t else None
        if speedup is None:
            continue  # untimed, or a host reference
        ci = t.get("speedup_interval") or {}
        low, high = finite(ci.get("low")), finite(ci.get("high"))
        rows.append((label(c), speedup, low if low is not None else speedup, high if high is not None else speedup,
                     VERDICT_COLOR.get(t.get("verdict"), "tab:gray")))
    if not rows:
        return None
    fig = interval_chart(plt, rows, "speedup: reference median / optimized median (95% interval)",
                         "speedup per case", [(1.0, ("black", "-"), "")])
    return save(fig, plt, os.path.join(out, "speedups.png"))


def plot_roofline(plt, out, cases):
    """Each case with bytes and flops at its intensity; the ceilings as the first such case's run measured them."""
    points, memory, peaks, device = [], None, {}, None
    for c in cases:
        t = c["timing"]
        roof = t.get("roofline") if t else None
        work = t.get("work") if t else None
        if not isinstance(roof, dict) or not isinstance(work, dict):
            continue
        intensity, flops = finite(roof.get("intensity")), finite(work.get("flops"))
        if not intensity or not flops:
            continue
        memory = memory or finite(roof.get("memory_bytes_per_second"))
        arithmetic = work.get("flop_type", "f32") + (" (matrix units)" if work.get("matrix_units") else "")
        if not work.get("matrix_units") and c["peaks"].get(work.get("flop_type")):
            peaks[work["flop_type"]] = c["peaks"][work["flop_type"]]
        device = device or c["device"]
        for side in ("optimized", "reference"):
            stats = side_stats(c, side)
            if stats:
                points.append((c["case"], side, intensity, flops / stats[0], arithmetic))
    if not points:
        return None
    fig, ax = plt.subplots(figsize=(8, 5.2))
    xs = [p[2] for p in points]
    low, high = min(xs) / 4, max(xs) * 4
    for peak in peaks.values():
        if memory:
            low, high = min(low, peak / memory / 4), max(high, peak / memory * 4)
    grid = [low * (high / low) ** (i / 200) for i in range(201)]
    if memory:
        ax.plot(grid, [memory * x for x in grid], color="tab:red", linestyle="--", linewidth=1,
                label=f"memory: {memory / 1e12:.2f} TB/s")
    for (arithmetic, peak), style in zip(sorted(peaks.items()), ("-", "-.", ":", (0, (5, 1)))):
        roof = [min(peak, memory * x) if memory else peak for x in grid]
        ax.plot(grid, roof, color="black", linestyle=style, linewidth=1, label=f"{arithmetic} peak: {peak / 1e12:.1f} TFLOP/s")
    # A colour per case (its shapes are its points), filled for the optimized side, open for the reference.
    colors = [plt.cm.tab20(i) for i in range(20)]
    for i, name in enumerate(dict.fromkeys(p[0] for p in points)):
        for side in ("optimized", "reference"):
            mine = [p for p in points if p[0] == name and p[1] == side]
            if mine:
                ax.plot([p[2] for p in mine], [p[3] for p in mine], marker="o", linestyle="none",
                        color=colors[i % len(colors)], fillstyle="full" if side == "optimized" else "none",
                        label=f"{name} ({mine[0][4]})" if side == "optimized" else None)
    ax.plot([], [], marker="o", linestyle="none", color="gray", label="filled: optimized, open: reference")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity: declared flops / declared bytes (FLOP/B)")
    ax.set_ylabel("FLOP/s at the median time")
    ax.set_title(f"roofline{' on ' + device if device else ''}: ceilings measured in the same run")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    return save(fig, plt, os.path.join(out, "roofline.png"))


def load_comparison(path):
    """A comparison with a baseline as kbench-compare writes it (`--json PATH`, schema "kbench-baseline/1"):
    the ratios, their bootstrap intervals and the verdicts are kbench's, drawn as they are."""
    doc = read_document(path, COMPARISON_SCHEMA, ": write one with kbench-compare OLD.json NEW.json --json PATH")
    if finite(doc.get("threshold")) is None:
        raise BadInput(f"{path}: has no \"threshold\"")
    return doc


def plot_comparison(plt, out, comparison):
    threshold = finite(comparison["threshold"])
    rows = []
    for c in comparison["cases"]:
        ratio = finite(c.get("ratio"))
        if ratio is None:
            continue  # not timed in both runs
        ci = c.get("ratio_interval") or {}
        low, high = finite(ci.get("low")), finite(ci.get("high"))
        rows.append((c["label"], ratio, ratio if low is None else low, ratio if high is None else high,
                     VERDICT_COLOR.get(c.get("verdict"), "tab:gray")))
    if not rows:
        return None
    fig = interval_chart(plt, rows, "current / baseline median time of the optimized kernel (above 1: slower)",
                         f"against the baseline (95% interval; threshold {100 * threshold:g}%)",
                         [(1.0, ("black", "-"), ""),
                          (1 + threshold, ("tab:red", "--"), f"{100 * threshold:g}% slower"),
                          (1 / (1 + threshold), ("tab:green", "--"), f"{100 * threshold:g}% faster")])
    return save(fig, plt, os.path.join(out, "baseline.png"))


def save(fig, plt, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", nargs="+", metavar="RESULTS.json", help="perf results (kbench-results/1)")
    p.add_argument("--out", default=".", help="folder for the PNG files (default: the current one)")
    p.add_argument("--comparison", metavar="COMPARISON.json",
                   help="a comparison with a baseline (kbench-compare --json): also plot baseline.png")
    args = p.parse_args()
    try:
        cases = [c for path in args.results for c in load(path)]
        comparison = load_comparison(args.comparison) if args.comparison else None
        os.makedirs(args.out, exist_ok=True)
    except (BadInput, OSError) as e:
        print(f"kbench-plot: {e}", file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("kbench-plot: matplotlib is not installed (Debian: apt-get install python3-matplotlib)", file=sys.stderr)
        return 77
    try:
        written = []
        for name, dim, points in sweeps(cases):
            written += [plot_time(plt, args.out, name, dim, points), plot_bandwidth(plt, args.out, name, dim, points)]
        written.append(plot_speedups(plt, args.out, cases))
        written.append(plot_roofline(plt, args.out, cases))
        if comparison is not None:
            written.append(plot_comparison(plt, args.out, comparison))
    except BadInput as e:
        print(f"kbench-plot: {e}", file=sys.stderr)
        return 2
    written = [w for w in written if w]
    if not written:
        print("kbench-plot: nothing to plot: no case has a timing (a correctness run?)", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
