"""kbench's headers, for the checks that read them (layers.py, sizes.py, beside it)."""
import os


def headers(root):
    """(path under root with '/' separators, text) of every .hpp under root, in a stable order."""
    for directory, subdirectories, files in os.walk(root):
        subdirectories.sort()
        for name in sorted(files):
            if name.endswith(".hpp"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as handle:
                    yield os.path.relpath(path, root).replace(os.sep, "/"), handle.read()
