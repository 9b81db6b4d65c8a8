"""Validates kbench results documents against the "kbench-results/1" JSON Schema
(schema/kbench-results-1.schema.json, Draft 2020-12).

    python3 check_schema.py SCHEMA RESULTS.json...
        every error of every document, each with its JSON path
    python3 check_schema.py --self-test SCHEMA VALID_RESULTS.json
        the document must be valid; mutations of it that the schema must reject (a required key deleted, an
        unknown key added, a bad enum value, a string for an integer...) must be rejected, so the schema cannot
        be vacuous; and variants the writer can produce must be accepted, so it is not stricter than the writer

Exit status: 0 all valid (self-test: every check as expected); 1 a document is invalid or not JSON, or a
mutation was accepted (or a valid variant rejected); 2 bad usage, or an unreadable schema or self-test
document; 77 (skipped) when this python cannot import jsonschema (Debian: apt-get install
python3-jsonschema). Works with jsonschema 4.10 (Debian 12) and later.
"""
import copy
import json
import re
import sys

USAGE = ("usage: check_schema.py SCHEMA RESULTS.json...\n"
         "       check_schema.py --self-test SCHEMA VALID_RESULTS.json")

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError as e:
    print(f"kbench: skipped: {sys.executable} cannot import jsonschema with Draft 2020-12 support ({e}); "
          "apt-get install python3-jsonschema")
    sys.exit(77)


class Unreadable(Exception):
    pass


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Unreadable(f"cannot be read as JSON: {e}") from e


def load(path):
    """The JSON in `path`; bad usage (exit 2) when there is none."""
    try:
        return read(path)
    except Unreadable as e:
        print(f"{path}: {e}")
        sys.exit(2)


def validator_for(schema_path):
    schema = load(schema_path)
    try:
        Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"{schema_path}: not a valid Draft 2020-12 schema: {e.message} (at {json_path(e.absolute_path)})")
        sys.exit(1)
    return Draft202012Validator(schema)


def json_path(path):
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            out += "." + part
        else:
            out += "[" + json.dumps(part) + "]"
    return out


def leaves(error):
    """The errors that say what is wrong: a oneOf / anyOf error stands for those of its branches, less the
    branch that only says the value is not null (a nullable field's other choice)."""
    if not error.context:
        yield error
        return
    branches = [e for e in error.context if not (e.validator == "type" and e.validator_value == "null")]
    if not branches:
        yield error
        return
    for e in branches:
        yield from leaves(e)


def short(text, limit=240):
    return text if len(text) <= limit else text[:limit] + "..."


def errors_of(validator, document):
    """Every error, as "PATH: message" lines, sorted by path, without repeats."""
    found = {}
    for error in validator.iter_errors(document):
        for leaf in leaves(error):
            path = tuple(leaf.absolute_path)
            line = f"{json_path(path)}: {short(leaf.message)}"
            found.setdefault(line, tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in path))
    return sorted(found, key=lambda line: (found[line], line))


def check_documents(schema_path, paths):
    validator = validator_for(schema_path)
    invalid = 0
    for path in paths:
        try:
            errors = errors_of(validator, read(path))
        except Unreadable as e:
            invalid += 1
            print(f"{path}: INVALID, {e}")
            continue
        if errors:
            invalid += 1
            print(f"{path}: INVALID, {len(errors)} error(s):")
            for line in errors:
                print(f"  {line}")
        else:
            print(f"{path}: valid")
    print(f"{len(paths) - invalid} of {len(paths)} document(s) valid against {schema_path}")
    return 1 if invalid else 0


def first_key(node, key, path=()):
    """The path of the first `key` in the document (depth first), or None."""
    if isinstance(node, dict):
        if key in node:
            return path + (key,)
        children = node.items()
    elif isinstance(node, list):
        children = enumerate(node)
    else:
        return None
    for k, v in children:
        found = first_key(v, key, path + (k,))
        if found:
            return found
    return None


def parent_of(document, path):
    for part in path[:-1]:
        document = document[part]
    return document


def self_test(schema_path, valid_path):
    validator = validator_for(schema_path)
    document = load(valid_path)
    failures = 0

    errors = errors_of(validator, document)
    if errors:
        print(f"FAIL {valid_path} is not valid to begin with:")
        for line in errors:
            print(f"  {line}")
        return 1
    print(f"ok   {valid_path} as given: valid")
    if not isinstance(document.get("cases"), list) or not document["cases"]:
        print(f"{valid_path}: the self-test needs a document with at least one case")
        return 2

    def expect(rejected, what, mutate):
        nonlocal failures
        doc = copy.deepcopy(document)
        mutate(doc)
        errors = errors_of(validator, doc)
        if rejected and errors:
            print(f"ok   rejected: {what}: {errors[0]}" + (f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""))
        elif not rejected and not errors:
            print(f"ok   accepted: {what}")
        else:
            failures += 1
            if rejected:
                print(f"FAIL accepted, but the schema must reject it: {what}")
            else:
                print(f"FAIL rejected, but the schema must accept it: {what}: " + "; ".join(errors))

    # What must be rejected.
    # Keys that documents of older kbench lack are optional, read with a default ("complete": true).
    optional = {"complete", "incomplete_reason", "clock_setting"}
    for key in list(document):
        expect(key not in optional, f"top-level key '{key}' deleted", lambda d, key=key: d.pop(key))
    expect(True, "an unknown key 'bogus' added to cases[0]", lambda d: d["cases"][0].__setitem__("bogus", 1))
    expect(True, "an unknown key 'bogus' added at the top level", lambda d: d.__setitem__("bogus", 1))
    expect(True, "mode set to \"bogus\"", lambda d: d.__setitem__("mode", "bogus"))
    expect(True, "schema set to \"kbench-results/2\"", lambda d: d.__setitem__("schema", "kbench-results/2"))
    expect(True, "cases[0].verdict set to \"passed\"", lambda d: d["cases"][0].__setitem__("verdict", "passed"))
    expect(True, "cases[0].shape given a size that is a string",
           lambda d: d["cases"][0]["shape"].__setitem__("rows", "4096"))
    count = first_key(document, "count")
    if count:
        expect(True, f"{json_path(count)} (an integer count) set to a string",
               lambda d: parent_of(d, count).__setitem__("count", str(parent_of(d, count)["count"])))
    expect(True, "options.iterations (an integer) set to a string",
           lambda d: d["options"].__setitem__("iterations", "100"))
    expect(True, "options.iterations (an integer) set to 1.5", lambda d: d["options"].__setitem__("iterations", 1.5))
    expect(True, "ceilings_seconds (a number) set to \"Infinity\" (not one of inf, -inf, nan)",
           lambda d: d.__setitem__("ceilings_seconds", "Infinity"))
    expect(True, "ceilings_seconds (a number, never null) set to null",
           lambda d: d.__setitem__("ceilings_seconds", None))
    timed = next((i for i, c in enumerate(document["cases"]) if isinstance(c.get("timing"), dict)), None)
    if timed is not None:
        t = f"cases[{timed}].timing"
        expect(True, f"an unknown key 'bogus' added to {t}",
               lambda d: d["cases"][timed]["timing"].__setitem__("bogus", 1))
        expect(True, f"{t}.mode set to \"auto\" (an option, never a result)",
               lambda d: d["cases"][timed]["timing"].__setitem__("mode", "auto"))
        expect(True, f"{t}.findings given a finding of kind \"bogus\"",
               lambda d: d["cases"][timed]["timing"]["findings"].append({"kind": "bogus", "text": "x"}))
        expect(True, f"{t}.findings given a finding without its text",
               lambda d: d["cases"][timed]["timing"]["findings"].append({"kind": "note"}))
        expect(True, f"{t}.optimized.median deleted",
               lambda d: d["cases"][timed]["timing"]["optimized"].pop("median"))
        if isinstance(document["cases"][timed]["timing"].get("time_saved"), dict):
            expect(True, f"{t}.time_saved.per_call without its interval",
                   lambda d: d["cases"][timed]["timing"]["time_saved"]["per_call"].pop("low"))
            expect(True, f"{t}.time_saved.per_layer set to a bare number",
                   lambda d: d["cases"][timed]["timing"]["time_saved"].__setitem__("per_layer", 1e-3))
        if isinstance(document["cases"][timed]["timing"].get("clocks"), dict):
            expect(True, f"{t}.clocks.throttled_kept set to \"no\"",
                   lambda d: d["cases"][timed]["timing"]["clocks"].__setitem__("throttled_kept", "no"))
            expect(False, f"{t}.clocks.samples.optimized given a clock that was not read (null)",
                   lambda d: d["cases"][timed]["timing"]["clocks"]["samples"]["optimized"].append(None))
    else:
        print("note: no case of the document has a timing; the timing mutations are left out")
    checked = next((i for i, c in enumerate(document["cases"]) if c.get("checks")), None)
    if checked is not None:
        expect(True, f"cases[{checked}].checks[0].seed written as a number",
               lambda d: d["cases"][checked]["checks"][0].__setitem__("seed", 12345))
        expect(True, f"an unknown key 'bogus' added to cases[{checked}].checks[0]",
               lambda d: d["cases"][checked]["checks"][0].__setitem__("bogus", 1))
    else:
        print("note: no case of the document has checks; the check mutations are left out")
    counted = next((i for i, c in enumerate(document["cases"]) if isinstance(c.get("census"), dict)), None)
    if counted is not None:
        expect(True, f"an unknown key 'bogus' added to cases[{counted}].census.optimized",
               lambda d: d["cases"][counted]["census"]["optimized"].__setitem__("bogus", 1))
        expect(True, f"cases[{counted}].census.optimized.copies set to null",
               lambda d: d["cases"][counted]["census"]["optimized"].__setitem__("copies", None))
    else:
        print("note: no case of the document has a census; the census mutations are left out")

    # What must be accepted: the schema must not be stricter than the writer.
    expect(False, "mode set to \"census\"", lambda d: d.__setitem__("mode", "census"))
    expect(False, "ceilings_seconds set to \"nan\"", lambda d: d.__setitem__("ceilings_seconds", "nan"))
    expect(False, "cases[0].timing set to null", lambda d: d["cases"][0].__setitem__("timing", None))
    expect(False, "cases[0].shape given a new dimension", lambda d: d["cases"][0]["shape"].__setitem__("batch", 3))
    if timed is not None:
        expect(False, f"cases[{timed}].timing.findings given a finding of kind \"misaligned\"",
               lambda d: d["cases"][timed]["timing"]["findings"].append({"kind": "misaligned", "text": "x"}))
        expect(False, f"cases[{timed}].timing.speedup set to \"-inf\"",
               lambda d: d["cases"][timed]["timing"].__setitem__("speedup", "-inf"))
        expect(False, f"cases[{timed}].timing.stage_seconds given a stage \"census\"",
               lambda d: d["cases"][timed]["timing"]["stage_seconds"].__setitem__("census", 0.01))
        # The time saved: null with a host reference, absent (with the calls) in documents of an older kbench,
        # per token given where the case declares its calls, and an interval unknown ("nan").
        expect(False, f"cases[{timed}].timing.time_saved set to null",
               lambda d: d["cases"][timed]["timing"].__setitem__("time_saved", None))
        expect(False, f"cases[{timed}].timing.time_saved and the work's calls deleted",
               lambda d: [d["cases"][timed]["timing"].pop("time_saved", None),
                          d["cases"][timed]["timing"]["work"].pop("calls_per_layer", None),
                          d["cases"][timed]["timing"]["work"].pop("calls_per_token", None)])
        if isinstance(document["cases"][timed]["timing"].get("time_saved"), dict):
            expect(False, f"cases[{timed}].timing.time_saved.per_token given, its interval \"nan\"",
                   lambda d: d["cases"][timed]["timing"]["time_saved"].__setitem__(
                       "per_token", {"seconds": 2e-6, "low": "nan", "high": "nan"}))

    if failures:
        print(f"self-test FAILED: {failures} check(s) not as expected")
        return 1
    print("self-test passed")
    return 0


def main(argv):
    if len(argv) == 3 and argv[0] == "--self-test":
        return self_test(argv[1], argv[2])
    if len(argv) >= 2 and not argv[0].startswith("-"):
        return check_documents(argv[0], argv[1:])
    print(USAGE)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
