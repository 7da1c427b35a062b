#!/usr/bin/env python3
"""Checks that the C and C++ sources are formatted to .clang-format.

  check_format.py CLANG_FORMAT SOURCE_DIR

Every *.c, *.cc and *.h under SOURCE_DIR (not build trees, node_modules or other ignored
outputs) must come out of CLANG_FORMAT unchanged; the frozen 0.2 plug-in fixture opts out with
its own .clang-format (DisableFormat). Exits 1 naming the files to format, with the command.
"""
import os
import shutil
import subprocess
import sys

SKIPPED_DIRS = {".git", "node_modules", "out", "fuzz-work"}
EXTENSIONS = (".c", ".cc", ".h")


def sources(root):
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("build"))
        for name in sorted(files):
            if name.endswith(EXTENSIONS):
                yield os.path.relpath(os.path.join(top, name), root)


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    clang_format, root = argv[1], argv[2]
    if not shutil.which(clang_format):
        print(f"skipped: no clang-format ({clang_format}); scripts/do.sh test installs it")
        return 77
    paths = list(sources(root))
    unformatted = []
    for path in paths:
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = f.read()
        formatted = subprocess.run([clang_format, f"--assume-filename={path}"], input=text, text=True,
                                   capture_output=True, check=True, cwd=root).stdout
        if formatted != text:
            unformatted.append(path)
    for path in unformatted:
        print(f"not formatted: {path}")
    print(f"{len(paths)} files checked against .clang-format, {len(unformatted)} not formatted")
    if unformatted:
        print(f"fix: cd {root} && {clang_format} -i " + " ".join(unformatted))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
