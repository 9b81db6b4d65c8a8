"""kbench's results from Python: the document read by kbench's reader, written back the same, and reported."""
import json
import os

import pytest

import kbench

DATA = os.path.join(os.path.dirname(__file__), "..", "data")


@pytest.fixture(scope="module")
def run():
    return kbench.read_results(os.path.join(DATA, "results.json"))


def test_the_document_reads_into_typed_values(run):
    assert run.mode == "perf"
    assert run.device.name == "NVIDIA H200"
    assert len(run.cases) == 8
    first = run.cases[0]
    assert first.label == "rmsnorm/rows=4096/cols=1024"
    assert first.verdict == "pass"
    assert first.timing.mode == "batch"
    low, high = first.timing.speedup_interval
    assert low <= first.timing.speedup <= high
    assert first.timing.verdict == "faster"
    assert first.timing.optimized.median < first.timing.reference.median


def test_the_document_round_trips(run):
    # kbench writes back what it read: the same document, key for key (the derived keys derived again).
    with open(os.path.join(DATA, "results.json"), encoding="utf-8") as handle:
        original = json.load(handle)
    assert json.loads(run.to_json()) == original


def test_the_report_is_the_programs(run):
    report = run.cases[0].report()
    assert report.startswith("rmsnorm/rows=4096/cols=1024\n  method     batch: ")
    assert "speedup    1.531x (95% interval 1.529 to 1.533): faster" in report


def test_a_failure_raises_with_its_reasons(tmp_path):
    with open(os.path.join(DATA, "results.json"), encoding="utf-8") as handle:
        document = json.load(handle)
    document["cases"][0]["verdict"] = "fail"
    document["cases"][0]["message"] = "a planted failure"
    failed = _read(tmp_path, document)
    record = failed.cases[0]
    assert record.failure_reasons()[0] == "a planted failure"
    with pytest.raises(kbench.CaseFailed, match="rmsnorm/rows=4096/cols=1024: a planted failure"):
        kbench.raise_for_verdict(record)
    kbench.raise_for_verdict(failed.cases[1])  # a pass raises nothing


def _read(tmp_path, document):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return kbench.read_results(str(path))


@pytest.mark.parametrize("text, message", [
    ("{", "the results are not JSON"),
    ('{"schema": "other"}', r'a "kbench-results/1" document'),
    ('{"schema": "kbench-results/1"}', 'the results have no "cases" array'),
])
def test_a_bad_document_is_a_usage_error(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(kbench.UsageError, match=message):
        kbench.read_results(str(path))
