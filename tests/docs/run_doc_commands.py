#!/usr/bin/env python3
"""Every shell command in the user docs runs (ctest label "docs").

    run_doc_commands.py --source SRC --build BUILD --work DIR [--timeout SECONDS] [FILE...]

FILEs (default: README.md, FUZZING.md, CHANGELOG.md, docs/**/*.md, corpus/README.md and
examples/*/README.md of SRC) are read for fenced code blocks tagged `sh`, `bash`, `shell` or
`console`. In a `console` block a command is a line starting with `$ ` (what follows is its
output); in the others every line that is not a comment is one. A command goes on over the
next lines until bash can parse it (a trailing `\\`, `&&`, an open quote or loop). Blocks of
other languages (`text` for program output or a synopsis, `cmake`, `json`, ...) are not run;
a block without a language, or an indented code block (four spaces, outside a list), is an
error, so a command cannot hide in one.

Each command runs in its own `bash -c`, with a time limit, in a scratch folder of its file
(the file's commands share it, so a build folder one command makes is there for the next;
shell state such as `cd` or `export` is not kept): the scratch folder links every top-level
entry of SRC (so `corpus/...`, `examples/...`, `fuzz/run.sh` resolve), `build` links BUILD,
and BUILD/bin comes first on PATH, so `opconform` is the built one. It must exit 0, or N
where its trailing comment starts with `exit N` (`... # exit 2: no case ran`).

A command that cannot run in a test carries a visible marker in the doc, a trailing comment
`# not run in tests: REASON`; a marker on a comment line of its own covers every command
after it in the block. The test prints each marker with its reason and counts them. It fails
when a command exits otherwise than the doc says or runs out of time, when a marker gives no
reason, or when no command ran at all.

The docs' placeholders for the reader's own files map to real artefacts (PLACEHOLDERS and
STAND_INS below, the only such table): `<prefix>` is a `cmake --install` of BUILD into the
work folder, made on first use.
"""
import argparse
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import time

# Text a command says for the reader's own paths -> what the test puts in its place.
PLACEHOLDERS = {
    "<prefix>": "{prefix}",      # an install of the build tree (made on first use)
    "<build>": "{build}",        # the build tree
    "/opt/opconform": "{scratch}/opt/opconform",  # README's install prefix, inside the scratch folder
}
# Files a command names as the reader's own -> the real artefact linked under that name in
# the scratch folder.
STAND_INS = {
    "libmykernels.so": "{build}/lib/opconform/libopconform_optimized_plugin.so",
    "libmyplugin.so": "{build}/lib/opconform/libopconform_optimized_plugin.so",
    "libmykernels_fuzz.so": "{build}/lib/opconform/libopconform_optimized_plugin.so",  # not instrumented
    "my_adapter.py": "{source}/tests/docs/my_adapter.py",  # runs the worker on the bundled plug-in
    "my_vectors": "{source}/corpus/vectors/dynamic_stitch",
    "known_failures.jsonl": "{source}/tests/docs/known_failures.jsonl",  # no entry: nothing fails
}
SHELL_TAGS = {"sh", "bash", "shell", "console"}
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)")
MARKER = re.compile(r"(?:^|[;#]\s*)not run in tests:\s*(.*)$")
EXIT = re.compile(r"(?:^|[;#]\s*)exit (\d+)\b")
DEFAULT_FILES = ["README.md", "FUZZING.md", "CHANGELOG.md", "docs/**/*.md", "corpus/README.md",
                 "examples/*/README.md"]


def comment_of(line):
    """The text of a line's trailing shell comment (after `#` at the start of a word, outside
    quotes), or None."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
            elif ch == "\\" and quote == '"':
                continue
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t;&|("):
            return line[i + 1:].strip()
    return None


def substituted(text, value=None, values=None):
    """text with each placeholder replaced: by its mapping under values, or by value."""
    for placeholder, mapped in PLACEHOLDERS.items():
        text = text.replace(placeholder, value if value is not None else mapped.format(**values))
    return text


def code_of(text):
    """A command's text without its comments."""
    out = []
    for line in text.split("\n"):
        c = comment_of(line)
        out.append(line if c is None else line[:len(line) - len(c)].rstrip().rstrip("#"))
    return "\n".join(out)


SYSTEM = re.compile(r"(?:^|[\s;&|(])(sudo|apt|apt-get|dpkg|pip3?)\s")
PREFIX = re.compile(r"--prefix[ =](\S+)")


def outside_scratch(text, work):
    """Why a command (placeholders mapped) would change the machine rather than the scratch
    folder, or None: a package manager, sudo, or an install prefix outside the work folder."""
    code = code_of(text)
    m = SYSTEM.search(code)
    if m:
        return f"it runs {m.group(1)}"
    for m in PREFIX.finditer(code):
        path = m.group(1).strip("\"'")
        if path.startswith("/") and not os.path.realpath(path).startswith(work + os.sep):
            return f"it installs into {path}, outside the scratch folder (map it in PLACEHOLDERS)"
    return None


def parses(text):
    return subprocess.run(["bash", "-n", "-c", text], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


class Command:
    def __init__(self, path, line, text, comments, block_marker):
        self.path, self.line, self.text = path, line, text
        self.expected = 0
        self.marker = block_marker
        self.own_marker = False
        for c in comments:
            m = MARKER.search(c)
            if m:
                self.marker, self.own_marker = m.group(1).strip(), True
            m = EXIT.search(c)
            if m:
                self.expected = int(m.group(1))


def blocks(path):
    """(first line number, tag, [(line number, text)]) of each fenced code block."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = FENCE.match(line)
            if fence is None and m:
                fence, tag, start, body = m.group(1), m.group(2).lower(), number, []
            elif fence is not None and m and m.group(1)[0] == fence[0] \
                    and len(m.group(1)) >= len(fence) and not m.group(2):
                yield start, tag, body
                fence = None
            elif fence is not None:
                body.append((number, line))


LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def indented_code(path):
    """Line numbers where an indented code block starts (four spaces after a blank line,
    outside fences and lists): such a block has no language, so a command could hide in it."""
    starts, fence, in_list, prev_blank = [], None, False, True
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = FENCE.match(line)
            if m and (fence is None or m.group(1)[0] == fence[0]):
                fence = m.group(1) if fence is None else None
                prev_blank = False
                continue
            if fence is not None:
                continue
            if not line.strip():
                prev_blank = True
                continue
            indent = len(line) - len(line.lstrip())
            if LIST_ITEM.match(line):
                in_list = True
            elif indent == 0:
                in_list = False
            elif indent >= 4 and prev_blank and not in_list:
                starts.append(number)
            prev_blank = False
    return starts


def commands(path, name, errors):
    """The commands of a file's shell blocks (name: the file as reported), the number of
    marker comments in it and the number of untagged blocks."""
    found, markers, untagged = [], 0, 0
    for number in indented_code(path):
        untagged += 1
        errors.append(f"{name}:{number}: an indented code block: fence it as sh (run in this "
                      f"test) or text (program output, a formula)")
    for start, tag, body in blocks(path):
        if not tag:
            untagged += 1
            errors.append(f"{name}:{start}: a code block without a language: tag it sh (run "
                          f"in this test) or text (program output, a synopsis)")
        if tag not in SHELL_TAGS:
            continue
        block_marker = None
        pending = None  # (first line, [lines], [comments])
        for number, raw in body:
            indent = len(raw) - len(raw.lstrip())
            line = raw.strip()
            if pending is None:
                if tag == "console":
                    if not line.startswith("$ "):
                        continue
                    line = line[2:]
                if not line:
                    continue
                if line.startswith("#"):
                    m = MARKER.match(line[1:].strip())
                    if m:
                        markers += 1
                        block_marker = m.group(1).strip()
                        if not block_marker:
                            errors.append(f"{name}:{number}: a marker without a reason")
                    continue
                pending = (number, [], [])
            first, lines, comments = pending
            lines.append(line if not lines else raw)
            c = comment_of(line)
            if c is not None:
                comments.append(c)
                if MARKER.search(c):
                    markers += 1
                    if not MARKER.search(c).group(1).strip():
                        errors.append(f"{name}:{number}: a marker without a reason")
            text = "\n".join(lines)
            if not text.rstrip().endswith("\\") and parses(substituted(text, "/placeholder")):
                found.append(Command(path, first, text, comments, block_marker))
                pending = None
        if pending is not None:
            errors.append(f"{name}:{pending[0]}: a command that bash cannot parse: {pending[1][0]}")
    return found, markers, untagged


class Refused(Exception):
    pass


class Runner:
    def __init__(self, args):
        self.source = os.path.realpath(args.source)
        self.build = os.path.realpath(args.build)
        self.work = os.path.realpath(args.work)
        self.timeout = args.timeout
        self.prefix = None

    def values(self, scratch):
        return {"source": self.source, "build": self.build, "scratch": scratch,
                "prefix": self.prefix or ""}

    def install(self):
        if self.prefix is None:
            prefix = os.path.join(self.work, "prefix")
            subprocess.run(["cmake", "--install", self.build, "--prefix", prefix],
                           stdout=subprocess.DEVNULL, check=True)
            self.prefix = prefix
            print(f"installed the build tree into {prefix} (for <prefix>)")

    def scratch(self, doc):
        scratch = os.path.join(self.work, os.path.relpath(doc, self.source).replace("/", "_"))
        if os.path.isdir(scratch):
            return scratch
        os.makedirs(scratch)
        for entry in os.listdir(self.source):
            if entry == ".git" or entry.startswith("build"):
                continue
            os.symlink(os.path.join(self.source, entry), os.path.join(scratch, entry))
        os.symlink(self.build, os.path.join(scratch, "build"))
        for name, target in STAND_INS.items():  # copies: a command may write over them
            target = target.format(**self.values(scratch))
            if os.path.isdir(target):
                shutil.copytree(target, os.path.join(scratch, name))
            else:
                shutil.copy(target, os.path.join(scratch, name))
        return scratch

    def run(self, cmd):
        scratch = self.scratch(cmd.path)
        text = cmd.text
        if "<prefix>" in text:
            self.install()
        text = substituted(text, values=self.values(scratch))
        why = outside_scratch(text, self.work)
        if why:
            raise Refused(f"not run, as {why}: mark it or map it")
        env = dict(os.environ)
        env["PATH"] = os.path.join(self.build, "bin") + os.pathsep + env.get("PATH", "")
        env["XDG_CACHE_HOME"] = os.path.join(scratch, ".cache")  # validate's saved failures
        t0 = time.monotonic()
        p = subprocess.Popen(["bash", "-c", text], cwd=scratch, env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            out, _ = p.communicate(timeout=self.timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            rc = None
        return rc, out.decode("utf-8", "replace"), time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True, help="scratch folder, emptied first")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per command")
    ap.add_argument("--list", action="store_true", help="print the commands, run none")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    runner = Runner(args)
    shutil.rmtree(runner.work, ignore_errors=True)
    os.makedirs(runner.work)
    patterns = args.files or DEFAULT_FILES
    docs = sorted({os.path.realpath(p) for pat in patterns
                   for p in glob.glob(os.path.join(runner.source, pat), recursive=True)})
    errors, per_file = [], []
    totals = {"run": 0, "skipped": 0, "markers": 0}
    for doc in docs:
        name = os.path.relpath(doc, runner.source)
        found, markers, untagged = commands(doc, name, errors)
        ran = skipped = 0
        for cmd in found:
            where = f"{name}:{cmd.line}"
            first = cmd.text.split("\n")[0]
            if args.list:
                print(f"{where} exit {cmd.expected} marker {cmd.marker!r}\n  {cmd.text}")
                continue
            if cmd.marker is not None:
                skipped += 1
                print(f"SKIP {where}: {first}\n     not run in tests: {cmd.marker}")
                continue
            try:
                rc, out, seconds = runner.run(cmd)
            except Refused as refused:
                errors.append(f"{where}: {refused}: {first}")
                print(f"FAIL {where}: {refused}")
                continue
            ran += 1
            if rc == cmd.expected:
                print(f"ok   {where} ({seconds:.1f} s, exit {rc}): {first}")
                continue
            why = f"ran out of its {args.timeout:g} s" if rc is None else f"exited {rc}, the doc says {cmd.expected}"
            errors.append(f"{where}: {why}: {first}")
            print(f"FAIL {where} ({seconds:.1f} s): {why}\n{cmd.text}\n--- output (last 40 lines):")
            print("\n".join(out.rstrip().split("\n")[-40:]))
            print("---")
        per_file.append((name, ran, skipped, markers))
        totals["run"] += ran
        totals["skipped"] += skipped
        totals["markers"] += markers
    print(f"\n{'file':40} {'run':>4} {'not run':>8} {'markers':>8}")
    for name, ran, skipped, markers in per_file:
        if ran or skipped or markers:
            print(f"{name:40} {ran:4} {skipped:8} {markers:8}")
    print(f"{'total':40} {totals['run']:4} {totals['skipped']:8} {totals['markers']:8}")
    print(f"{len(docs)} files read; {totals['run']} commands run, {totals['skipped']} not run "
          f"under {totals['markers']} markers")
    if totals["run"] == 0 and not args.list:
        errors.append("no command ran: the test checked nothing")
    for e in errors:
        print(f"FAIL {e}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
