#!/usr/bin/env python3
"""The size limits of kbench's headers, so that each stays readable in one sitting: no header over 400
lines, no class over 250, no function (or lambda) over 80.

    tests/repository/sizes.py [include dir]   check (exit 1 and one line per excess when any)
    tests/repository/sizes.py --self-test     prove the check can fail
    tests/repository/sizes.py --list N        the N largest classes and functions

A small scanner, not a compiler: comments, string and character literals are blanked, then each `{` is
matched with its `}` and named by the text before it (a class or struct, a function or lambda: a head that
ends in a parameter list, qualifiers or a constructor's initializers; control statements are not
functions).
"""
import os
import re
import sys
import tempfile

from kbench_headers import headers

LIMITS = {"header": 400, "class": 250, "function": 80}
CONTROL = re.compile(r"\b(if|for|while|switch|catch|do|else|try)\s*(\(|$)")
CLASS = re.compile(r"(^|[\s>])(class|struct|union)\s+(\w+)[^()]*$")
NAME = re.compile(r"([~\w:]+|operator\s*\S+)\s*\(")


def blank(text):
    """The text with comments and literals replaced by spaces (newlines kept, so line numbers hold)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            k = text.index("(", i)
            end = ")" + text[i + 2:k] + '"'
            j = text.index(end, k) + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # 1'000 is a digit separator
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (j + 1 - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def blocks(text):
    """(kind, name, first line, last line) of every class and function in `text`."""
    code = blank(text)
    found, stack, head_start = [], [], 0
    line_of = lambda pos: code.count("\n", 0, pos) + 1
    for pos, c in enumerate(code):
        if c in ";}":
            if c == "}" and stack:
                kind, name, start = stack.pop()
                if kind:
                    found.append((kind, name, line_of(start), line_of(pos)))
            head_start = pos + 1
        elif c == "{":
            head = " ".join(code[head_start:pos].split())
            kind, name = None, None
            m = CLASS.search(head)
            if m and not head.startswith("enum") and "=" not in head.split(m.group(2))[0]:
                kind, name = "class", m.group(3)
            elif head.endswith(("namespace", "extern \"C\"")) or re.match(r"namespace\b", head):
                kind = None
            elif re.search(r"\)\s*(const|noexcept|override|final|mutable|->\s*[\w:<>,\s*&]+|\s)*$", head) or \
                    re.search(r"\)\s*:\s*\w+[({]", head) and not CONTROL.search(head.split("(")[0] + "("):
                if not CONTROL.search(head[-200:].split(")")[0] + "(") and not re.search(r"\b(if|for|while|switch|catch)\s*\(", head[-120:]):
                    names = [n for n in NAME.findall(head) if n not in ("__launch_bounds__", "__attribute__", "alignas", "decltype")]
                    kind, name = "function", (names[0] if names else "lambda")
                    if "[" in head and "](" in head.replace(" ", ""):
                        name = "lambda in " + (names[0] if names else "?")
            stack.append((kind, name, pos))
            head_start = pos + 1
    return found


def excesses(root):
    found = []
    for rel, text in headers(root):
        lines = text.count("\n")
        if lines > LIMITS["header"]:
            found.append((rel, "header", rel, lines))
        for kind, name, first, last in blocks(text):
            if last - first + 1 > LIMITS[kind]:
                found.append((f"{rel}:{first}", kind, name, last - first + 1))
    return found


def self_test():
    long_function = "int f(int x) {\n" + "  x += 1;\n" * 85 + "  return x;\n}\n"
    long_class = "struct s {\n" + "  int a;  // a '{' in a comment\n" * 255 + "};\n"
    fine = 'inline void g() {\n  const char* s = "{{{";\n  if (true) {\n  }\n}\n'
    with tempfile.TemporaryDirectory() as root:
        for name, text in {"a.hpp": long_function, "b.hpp": long_class, "c.hpp": fine, "d.hpp": "\n" * 401}.items():
            with open(os.path.join(root, name), "w") as handle:
                handle.write(text)
        kinds = sorted((where.split(":")[0], kind) for where, kind, _, _ in excesses(root))
        assert kinds == [("a.hpp", "function"), ("b.hpp", "class"), ("d.hpp", "header")], kinds
    print("sizes self-test: a long function, a long class and a long header are each refused; braces in "
          "literals and comments are not counted")
    return 0


def main():
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return self_test()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include", "kbench")
    if args[:1] == ["--list"]:
        rows = []
        for rel, text in headers(root):
            for kind, name, first, last in blocks(text):
                rows.append((last - first + 1, kind, name, f"{rel}:{first}"))
        for row in sorted(rows, reverse=True)[: int(args[1]) if len(args) > 1 else 20]:
            print(*row)
        return 0
    if args:
        root = args[0]
    found = excesses(root)
    for where, kind, name, lines in found:
        print(f"{where}: {kind} {name} is {lines} lines (limit {LIMITS[kind]})")
    if found:
        return 1
    print("sizes: every header within {header} lines, every class within {class}, every function within "
          "{function}".format(**LIMITS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
