#!/usr/bin/env python3
"""The README, the pages under docs/ and studies/README.md say only what the code does: every C++ snippet
is part of a file that the tests compile, every link leads somewhere, and every file of the repository
they name is there.

    tests/repository/docs_check.py <repository root>   check (exit 1 and one line per problem when any)
    tests/repository/docs_check.py --self-test         prove the check can fail

A ```cpp block passes when its lines (each stripped of surrounding blanks, blank lines left out) occur one
after another in a .hip, .cpp, .hpp or .cu file under tests/, examples/, kernels/ or include/. A relative
link passes when its file exists and, with a #fragment, the file has a heading of that anchor. A path in
backticks that starts with a top-level folder (`scripts/run.sh`, `tests/kernels/`) passes when it exists
under the repository root; one with a placeholder (`kernels/<name>/`, `*`) is not checked.
"""
import os
import re
import sys
import tempfile

SOURCES = ("tests", "examples", "kernels", "include")
EXTENSIONS = (".hip", ".cpp", ".hpp", ".cu")
BLOCK = re.compile(r"^[ \t]*```cpp\n(.*?)^[ \t]*```", re.M | re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")
FOLDERS = ("scripts", "studies", "tools", "tests", "docs", "cmake", "schema", "examples", "kernels", "include")
NAMED_PATH = re.compile(r"`((?:" + "|".join(FOLDERS) + r")/[^`\s]*)`")


def pages(root):
    """README.md, every Markdown page under docs/ and studies/README.md, as paths."""
    found = [os.path.join(root, "README.md")]
    if os.path.exists(os.path.join(root, "studies", "README.md")):
        found.append(os.path.join(root, "studies", "README.md"))
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        found += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    return found


def lines_of(text):
    return [line.strip() for line in text.splitlines() if line.strip()]


def source_texts(root):
    """Every compiled source, as its list of stripped non-blank lines, joined by newlines."""
    texts = []
    for folder in SOURCES:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for f in files:
                if f.endswith(EXTENSIONS):
                    with open(os.path.join(dirpath, f), encoding="utf-8", errors="replace") as handle:
                        texts.append("\n" + "\n".join(lines_of(handle.read())) + "\n")
    return texts


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors_of(path):
    with open(path, encoding="utf-8") as handle:
        return {anchor(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", handle.read(), re.M)}


def problems(root):
    found = []
    sources = source_texts(root)
    for page in pages(root):
        name = os.path.relpath(page, root)
        with open(page, encoding="utf-8") as handle:
            text = handle.read()
        for block in BLOCK.finditer(text):
            wanted = "\n" + "\n".join(lines_of(block.group(1))) + "\n"
            if not any(wanted in source for source in sources):
                line = text.count("\n", 0, block.start()) + 1
                found.append(f"{name}:{line}: this C++ snippet is in no compiled file under {', '.join(SOURCES)}")
        for link in LINK.finditer(text):
            target = link.group(1)
            if re.match(r"^[a-z]+:", target):
                continue  # http:, https:, mailto:
            path, _, fragment = target.partition("#")
            line = text.count("\n", 0, link.start()) + 1
            resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(resolved):
                found.append(f"{name}:{line}: link to {target}: no such file")
            elif fragment and resolved.endswith(".md") and fragment not in anchors_of(resolved):
                found.append(f"{name}:{line}: link to {target}: no heading with that anchor")
        for named in NAMED_PATH.finditer(text):
            path = named.group(1)
            if not re.search(r"[<>*{}$]", path) and not os.path.exists(os.path.join(root, path)):
                line = text.count("\n", 0, named.start()) + 1
                found.append(f"{name}:{line}: `{path}`: no such file or folder in the repository")
    return found


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "tests"))
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "tests", "a_test.hip"), "w") as f:
            f.write("void f() {\n  int x = 1;\n  (void)x;\n}\n")
        with open(os.path.join(root, "docs", "page.md"), "w") as f:
            f.write("# A page\n\n## Some part\n")
        good = "# r\n\n```cpp\nint x = 1;\n(void)x;\n```\n[p](docs/page.md#some-part) `tests/a_test.hip` `tests/<name>`\n"
        with open(os.path.join(root, "README.md"), "w") as f:
            f.write(good)
        assert problems(root) == [], problems(root)
        bad = "# r\n\n```cpp\nint x = 2;\n```\n[p](docs/none.md) [q](docs/page.md#other-part) `tests/b_test.hip`\n"
        with open(os.path.join(root, "README.md"), "w") as f:
            f.write(bad)
        found = problems(root)
        assert len(found) == 4, found
        assert "snippet is in no compiled file" in found[0] and "no such file" in found[1], found
        assert "no heading with that anchor" in found[2], found
        assert "`tests/b_test.hip`: no such file or folder" in found[3], found
    print("docs_check: self-test passed (a changed snippet, a missing file, a missing anchor and a missing named"
          " path are caught)")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    found = problems(sys.argv[1])
    for problem in found:
        print(problem)
    if not found:
        print(f"docs_check: {len(pages(sys.argv[1]))} pages: every C++ snippet compiled, every link leads somewhere,"
              " every named path there")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
