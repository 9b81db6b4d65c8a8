#!/usr/bin/env python3
"""The keys the results document's reader reads (include/kbench/reports/*_read.hpp, json_read.hpp's readers) against
the schema (schema/kbench-results-1.schema.json): every key read is one the schema names, so that a reader cannot read
a key the writer never writes (it would read the default, silently); and every key the schema names is read, or is
one the writer derives from what it reads (listed below), so that a key added to the writer and the schema is read
back too.

    tests/repository/schema_keys.py SCHEMA READER_HEADER...   check (exit 1, one line per key out of place)
    tests/repository/schema_keys.py --self-test               prove the check can fail

A key, in a reader's source, is a string literal of lowercase letters, digits and underscores outside comments; the
words it reads as values (element rules' kinds, "nan" and "inf") are not keys.
"""
import json
import re
import sys
import tempfile
import os

# Written from the structs, never read back: the readers give them again. (A finding's "source", the list it is in,
# is one too, but the clock setting's "source" is read: names are compared, not their places. So are each side's
# kernels' digests, but a case's "kernels_digest" is looked for: a document of a kbench before them lacks it.)
DERIVED = {
    "problems",        # a check's failing findings' texts
    "flags", "notes",  # a timing's findings' texts, failing and not
    "parts_seconds",   # a census side's kernels and copies, added
    "digest",          # the declaration's lines, hashed
}
# Values the readers compare with, not keys.
VALUES = {"exact", "within", "ulp", "nan", "inf"}
LITERAL = re.compile(r'"([a-z][a-z0-9_]*)"')
COMMENT = re.compile(r"//[^\n]*")


def schema_keys(node, found=None):
    """Every property name the schema gives, at any depth."""
    found = set() if found is None else found
    if isinstance(node, dict):
        for name in node.get("properties", {}) if isinstance(node.get("properties"), dict) else {}:
            found.add(name)
        for value in node.values():
            schema_keys(value, found)
    elif isinstance(node, list):
        for value in node:
            schema_keys(value, found)
    return found


def reader_keys(paths):
    keys = {}
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            text = COMMENT.sub("", handle.read())
        for line_number, line in enumerate(text.splitlines(), 1):
            for key in LITERAL.findall(line):
                if key not in VALUES:
                    keys.setdefault(key, f"{os.path.basename(path)}:{line_number}")
    return keys


def problems(schema_path, reader_paths):
    with open(schema_path, encoding="utf-8") as handle:
        named = schema_keys(json.load(handle))
    read = reader_keys(reader_paths)
    found = [f"{where}: reads \"{key}\", which the schema names nowhere" for key, where in sorted(read.items())
             if key not in named]
    found += [f"{schema_path}: names \"{key}\", which no reader reads (read it, or list it in DERIVED)"
              for key in sorted(named - set(read) - DERIVED)]
    found += [f"schema_keys.py: \"{key}\" is listed as derived, but a reader reads it" for key in sorted(DERIVED & set(read))]
    return found


def self_test():
    with tempfile.TemporaryDirectory() as root:
        schema = os.path.join(root, "schema.json")
        reader = os.path.join(root, "reader.hpp")
        with open(schema, "w") as handle:
            json.dump({"properties": {"a": {}, "b": {"properties": {"c": {}}}, "digest": {}}}, handle)
        with open(reader, "w") as handle:
            handle.write('read(j, "a", x);  // "bogus" in a comment\nread(at_key(j, "b"), "c", y);\nif (w == "exact") {}\n')
        assert problems(schema, [reader]) == [], problems(schema, [reader])
        with open(reader, "a") as handle:
            handle.write('read(j, "d", z);\n')
        assert [p.split(": ", 1)[1] for p in problems(schema, [reader])] == ['reads "d", which the schema names nowhere']
        with open(reader, "w") as handle:
            handle.write('read(j, "a", x);\n')
        assert any('names "b", which no reader reads' in p for p in problems(schema, [reader]))
    print("schema keys self-test: a key the schema lacks, and a key of the schema no reader reads, are both refused")
    return 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) < 2:
        print(__doc__)
        return 2
    found = problems(argv[0], argv[1:])
    for line in found:
        print(line)
    if found:
        return 1
    print(f"schema keys: every key the {len(argv) - 1} readers read is in the schema, and every key of the schema is "
          "read or derived")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
