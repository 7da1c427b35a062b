#!/usr/bin/env python3
"""Every option of the command line is in the user docs (ctest label "docs").

    check_options.py OPCONFORM SRC

Reads the subcommands from `OPCONFORM --help` and each one's long options from
`OPCONFORM SUB --help` (the lines that declare an option), and looks for each option, as a
whole word, in README.md, FUZZING.md, CHANGELOG.md, corpus/README.md, docs/**/*.md and
examples/*/README.md of SRC. Exit 0 when every option is found; 1, naming each missing
option, otherwise; 2 when no subcommand or no option was read (nothing checked).
"""
import glob
import os
import re
import subprocess
import sys

DOCS = ["README.md", "FUZZING.md", "CHANGELOG.md", "corpus/README.md", "docs/**/*.md",
        "examples/*/README.md"]
OPTION = re.compile(r"^  (?:-\w,)?--([a-z0-9][a-z0-9-]*)")
SUBCOMMAND = re.compile(r"^  ([a-z][a-z0-9-]*)\s{2,}\S")


def help_text(*args):
    return subprocess.run(list(args) + ["--help"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, check=True).stdout


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    opconform, source = argv[1], argv[2]
    text = ""
    for pattern in DOCS:
        for path in sorted(glob.glob(os.path.join(source, pattern), recursive=True)):
            with open(path, encoding="utf-8") as f:
                text += f.read()
    top = help_text(opconform)
    subcommands = []
    if "Subcommands:" in top:
        subcommands = [m.group(1) for line in top.split("Subcommands:", 1)[1].splitlines()
                       if (m := SUBCOMMAND.match(line))]
    checked, missing = 0, []
    for sub in [None] + subcommands:
        out = top if sub is None else help_text(opconform, sub)
        for line in out.splitlines():
            m = OPTION.match(line)
            if not m or m.group(1) == "help":
                continue
            checked += 1
            option = "--" + m.group(1)
            if not re.search(re.escape(option) + r"(?![\w-])", text):
                missing.append(f"opconform {sub + ' ' if sub else ''}{option}")
    for m in missing:
        print(f"UNDOCUMENTED {m}: in `--help`, in none of the user docs")
    print(f"{len(subcommands)} subcommands ({', '.join(subcommands)}), {checked} options, "
          f"{len(missing)} undocumented")
    if not subcommands or not checked:
        print("FAIL no subcommand or no option read: nothing was checked")
        return 2
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
