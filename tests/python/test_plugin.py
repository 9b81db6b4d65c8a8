"""kbench's pytest plugin: one test per shape, skipped with the reason where cases cannot run, and a broken
declaration failing with kbench's message (pytest run on samples/ in a subprocess, as a user runs it)."""
import os
import subprocess
import sys

import pytest

import kbench

SAMPLE = os.path.join(os.path.dirname(__file__), "samples", "rmsnorm_cases.py")


def run_pytest(*arguments):
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "kbench.pytest_plugin", "-rs", "-p", "no:cacheprovider",
                           SAMPLE, *arguments], capture_output=True, text=True, env=environment, check=False)


def test_one_test_per_shape_is_collected():
    result = run_pytest("--collect-only", "-q")
    assert result.returncode == 0, result.stdout + result.stderr
    collected = [line for line in result.stdout.splitlines() if "::" in line]
    names = [line.split("::", 1)[1] for line in collected]
    assert names == ["test_rmsnorm[rows=37/cols=1531]", "test_rmsnorm[rows=16384/cols=8192]",
                     "test_rmsnorm[rows=1/cols=7]", "test_zeros[rows=37/cols=1531]", "test_broken[n=4]"]


def test_where_cases_cannot_run_each_is_skipped_with_the_reason():
    reason = kbench.gpu_unavailable_reason()
    if reason is None:
        pytest.skip("kbench: skipped: this machine runs the cases (test_gpu_path.py checks them there)")
    result = run_pytest("-k", "test_rmsnorm")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 skipped" in result.stdout
    assert f"kbench: skipped rmsnorm [rows=16384/cols=8192]: {reason.splitlines()[0]}" in result.stdout


def test_a_broken_declaration_fails_rather_than_skips():
    result = run_pytest("-k", "test_broken")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 failed" in result.stdout
    assert "case 'broken' [n=4] declares no output: there is nothing to check" in result.stdout


def where_cases_run():
    reason = kbench.gpu_unavailable_reason()
    if reason is not None:
        pytest.skip(f"kbench: skipped: {reason}")
    pytest.importorskip("torch", reason="kbench: skipped: the sample's sides are torch's, and torch is not installed")


def test_where_cases_run_each_test_runs_and_passes():
    where_cases_run()
    result = run_pytest("-k", "test_rmsnorm")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 passed" in result.stdout


def test_a_wrong_kernel_fails_its_test_with_kbenchs_reasons():
    where_cases_run()
    result = run_pytest("-k", "test_zeros")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 failed" in result.stdout and "mismatch" in result.stdout


def test_the_perf_option_times_the_case():
    where_cases_run()
    result = run_pytest("-s", "-k", "test_rmsnorm and 37", "--kbench-perf", "--kbench-option=--max-time=0.5")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout and "speedup" in result.stdout
