#!/usr/bin/env python3
"""The include direction of kbench's headers: a header includes only headers of its own layer or of a
lower one, so that each layer can be read, changed and tested without the ones above it.

    tests/repository/layers.py [include dir]   check (exit 1 and one line per upward include when any)
    tests/repository/layers.py --self-test     prove the check can fail

The layers, lowest first, as docs/development.md's Layout section names them. A folder under include/kbench/
is a layer; the headers at the top are the entry points (compare.hpp is the contract's, procedure.hpp the
procedure's interface, main.hpp the whole program's); detail/ holds leaves that include nothing of kbench.
"""
import os
import re
import sys
import tempfile

from kbench_headers import headers

LAYERS = ["detail", "contract", "results", "reports", "decisions", "engines", "procedure", "program", "entry"]
ENTRY_POINTS = {"version.hpp": "detail", "compare.hpp": "contract", "procedure.hpp": "procedure", "main.hpp": "entry"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def layer_of(path):
    """The layer of a header, by its path under include/kbench (None: not a kbench header)."""
    parts = path.split("/")
    if len(parts) == 1:
        return ENTRY_POINTS.get(parts[0])
    return parts[0] if parts[0] in LAYERS else None


def upward_includes(root):
    """(header, included header, why) for every include that is not allowed."""
    found = []
    for path, text in headers(root):
        mine = layer_of(path)
        if mine is None:
            found.append((path, "-", "not in any layer: put it in one of " + ", ".join(LAYERS[:-1])))
            continue
        for bracket, target in INCLUDE.findall(text):
            if bracket == "<":
                if target.startswith("kbench/"):
                    found.append((path, target, 'kbench headers include each other with "", relative'))
                continue
            included = os.path.normpath(os.path.join(os.path.dirname(path), target)).replace(os.sep, "/")
            theirs = layer_of(included)
            if theirs is None:
                found.append((path, included, "not in any layer"))
            elif LAYERS.index(theirs) > LAYERS.index(mine):
                found.append((path, included, f"{mine} includes {theirs}, a higher layer"))
    return found


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "results"))
        os.makedirs(os.path.join(root, "engines"))
        with open(os.path.join(root, "engines", "tool.hpp"), "w") as f:
            f.write('#include "../results/data.hpp"\n')
        with open(os.path.join(root, "results", "data.hpp"), "w") as f:
            f.write("#pragma once\n")
        assert upward_includes(root) == [], "a downward include was refused"
        with open(os.path.join(root, "results", "data.hpp"), "w") as f:
            f.write('#pragma once\n#include "../engines/tool.hpp"\n')
        found = upward_includes(root)
        assert [(h, i) for h, i, _ in found] == [("results/data.hpp", "engines/tool.hpp")], found
        with open(os.path.join(root, "stray.hpp"), "w") as f:
            f.write("#pragma once\n")
        assert any(h == "stray.hpp" for h, _, _ in upward_includes(root)), "a header outside the layers passed"
    print("layers self-test: an upward include and a header outside the layers are both refused")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "include", "kbench")
    found = upward_includes(root)
    for header, included, why in found:
        print(f"{header}: includes {included}: {why}")
    if found:
        return 1
    count = sum(1 for _ in headers(root))
    print(f"layers: {count} headers, every include within its layer or downward ({' < '.join(LAYERS)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
