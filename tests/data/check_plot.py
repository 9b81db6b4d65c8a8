"""Runs tools/kbench-plot.py on the results shipped here, with the comparison kbench-compare writes of
them (the plot draws its intervals, computing none), and checks that it wrote the PNG files it must,
non-empty, and printed their paths; the single-shape case gets no sweep plots. Exit 77 (skipped) when this
python cannot import matplotlib.

    python3 check_plot.py PLOT_SCRIPT DATA_DIR OUT_DIR KBENCH_COMPARE
"""
import os
import shutil
import subprocess
import sys

script, data, out, compare = sys.argv[1:5]
try:
    import matplotlib  # noqa: F401
except ImportError:
    print(f"kbench: skipped: {sys.executable} cannot import matplotlib (apt-get install python3-matplotlib)")
    sys.exit(77)
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
comparison = os.path.join(out, "comparison.json")
compared = subprocess.run([compare, os.path.join(data, "results.json"), os.path.join(data, "results-slower.json"),
                           "--json", comparison], capture_output=True, text=True)
if compared.returncode != 1:  # the slower run regresses
    sys.exit(f"kbench-compare exited with {compared.returncode}: {compared.stdout}{compared.stderr}")
run = subprocess.run([sys.executable, script, "--out", out, "--comparison", comparison,
                      os.path.join(data, "results-slower.json")], capture_output=True, text=True)
print(run.stdout + run.stderr)
if run.returncode != 0:
    sys.exit(f"kbench-plot.py exited with {run.returncode}")
expected = ["rmsnorm-time.png", "rmsnorm-bandwidth.png", "speedups.png", "roofline.png", "baseline.png"]
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
# A results document where the comparison belongs is refused, saying how to make one.
wrong = subprocess.run([sys.executable, script, "--out", out, "--comparison", os.path.join(data, "results.json"),
                        os.path.join(data, "results.json")], capture_output=True, text=True)
if wrong.returncode != 2 or "kbench-compare OLD.json NEW.json --json" not in wrong.stderr:
    problems.append(f"a results document as the comparison gave exit {wrong.returncode} and {wrong.stderr!r}")
if problems:
    sys.exit("\n".join(problems))
print("ok: " + ", ".join(expected))
