"""Runs scripts/kbench-plot.py on the results shipped here and checks that it wrote the PNG files it must,
non-empty, and printed their paths; the single-shape case gets no sweep plots. Exit 77 (skipped) when this
python cannot import matplotlib.

    python3 check_plot.py PLOT_SCRIPT DATA_DIR OUT_DIR
"""
import os
import shutil
import subprocess
import sys

script, data, out = sys.argv[1:4]
try:
    import matplotlib  # noqa: F401
except ImportError:
    print(f"kbench: skipped: {sys.executable} cannot import matplotlib (apt-get install python3-matplotlib)")
    sys.exit(77)
shutil.rmtree(out, ignore_errors=True)
run = subprocess.run([sys.executable, script, "--out", out, "--baseline", os.path.join(data, "results.json"),
                      os.path.join(data, "results-slower.json")], capture_output=True, text=True)
print(run.stdout + run.stderr)
if run.returncode != 0:
    sys.exit(f"kbench-plot.py exited with {run.returncode}")
expected = ["rmsnorm-time.png", "rmsnorm-bandwidth.png", "speedups.png", "baseline.png"]
printed = run.stdout.split()
problems = [f"{name}: missing or empty" for name in expected
            if not os.path.isfile(os.path.join(out, name)) or os.path.getsize(os.path.join(out, name)) == 0]
problems += [f"{name}: not printed" for name in expected if os.path.join(out, name) not in printed]
problems += [f"{name}: written for a case of one shape" for name in ("softmax-time.png", "softmax-bandwidth.png")
             if os.path.exists(os.path.join(out, name))]
bad = subprocess.run([sys.executable, script, "--out", out, os.path.join(data, "no-such-file.json")],
                     capture_output=True, text=True)
if bad.returncode != 2 or "no-such-file.json: cannot be read" not in bad.stderr:
    problems.append(f"a missing input gave exit {bad.returncode} and {bad.stderr!r}")
if problems:
    sys.exit("\n".join(problems))
print("ok: " + ", ".join(expected))
