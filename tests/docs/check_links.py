#!/usr/bin/env python3
"""Every relative link in the markdown docs resolves (ctest label "docs").

    check_links.py DIR [DIR...]
    check_links.py --install BUILD WORK   # installs BUILD into WORK/prefix, checks its docs

Reads every *.md file under each DIR (build folders, hidden folders and node_modules left
out) and checks each relative link, inline `[text](path#anchor)` or reference-style
`[label]: path`, outside code blocks and code spans:
  * the path names an existing file or folder, relative to the linking file;
  * an anchor, in the same file (`#anchor`) or in a linked markdown file, is the GitHub slug
    of one of that file's headings (or an explicit `<a name|id="...">`).
Links with a scheme (https:, mailto:) are not followed. Run it on the source tree and on
the docs folder of an install (share/doc/opconform): a link to something not installed
breaks there. Exit status 0 when every link resolves, 1 otherwise (each broken link
printed as FILE:LINE: ...), 2 when no markdown file or no link is found.
"""
import os
import re
import shutil
import subprocess
import sys
import urllib.parse

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\".*\")?\s*$")
CODESPAN = re.compile(r"(`+)(?:.+?)\1")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
SKIP_DIRS = {"node_modules"}


def markdown_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith((".", "build")) and d not in SKIP_DIRS)
        for name in sorted(filenames):
            if name.endswith(".md"):
                yield os.path.join(dirpath, name)


def prose_lines(path, blank_code_spans=True):
    """(line number, text) of the lines outside fenced code blocks, code spans blanked."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = FENCE.match(line)
            if m:
                if fence is None:
                    fence = m.group(1)
                elif m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                    fence = None
                continue
            if fence is None:
                line = line.rstrip("\n")
                yield number, CODESPAN.sub("", line) if blank_code_spans else line


def slug(heading):
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to -."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        found, seen = set(), {}
        for _, line in prose_lines(path, blank_code_spans=False):
            found.update(HTML_ANCHOR.findall(line))
            m = HEADING.match(line)
            if m:
                base = slug(m.group(1))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        _anchors[path] = found
    return _anchors[path]


def links(path):
    for number, line in prose_lines(path):
        m = REFDEF.match(line)
        if m:
            yield number, m.group(1)
            continue
        for m in INLINE.finditer(line):
            yield number, m.group(1)


def check(root):
    files = list(markdown_files(root))
    checked, broken = 0, []
    for path in files:
        for number, target in links(path):
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue  # https:, mailto:, ...
            checked += 1
            where = f"{os.path.relpath(path, root)}:{number}"
            link, _, anchor = target.partition("#")
            link = urllib.parse.unquote(link)
            if link.startswith("/"):
                broken.append(f"{where}: {target}: an absolute path, not a relative link")
                continue
            dest = os.path.normpath(os.path.join(os.path.dirname(path), link)) if link else path
            if not os.path.exists(dest):
                broken.append(f"{where}: {target}: no such file or folder")
            elif anchor and dest.endswith(".md") and os.path.isfile(dest) \
                    and anchor not in anchors(dest):
                broken.append(f"{where}: {target}: no heading with anchor #{anchor} "
                              f"in {os.path.relpath(dest, root)}")
    return files, checked, broken


def main(argv):
    if len(argv) < 2 or (argv[1] == "--install" and len(argv) != 4):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if argv[1] == "--install":
        build, prefix = argv[2], os.path.join(argv[3], "prefix")
        shutil.rmtree(prefix, ignore_errors=True)
        subprocess.run(["cmake", "--install", build, "--prefix", prefix],
                       stdout=subprocess.DEVNULL, check=True)
        argv = [argv[0], os.path.join(prefix, "share", "doc", "opconform")]
    status = 0
    for root in argv[1:]:
        files, checked, broken = check(root)
        for line in broken:
            print(f"BROKEN {line}")
        print(f"{root}: {len(files)} markdown files, {checked} relative links, {len(broken)} broken")
        if not files or not checked:
            print(f"FAIL {root}: no markdown file or no relative link: nothing was checked")
            status = max(status, 2)
        elif broken:
            status = max(status, 1)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
