"""What the vector generators of corpus/tools/ share (standard library only): the canonical
layout they write vectors in, writing or checking the files, and the check ids of an op's check
list (generators/checks/<op>.inc), which its check tags must name."""
import json
import os
import re
import sys

CHECK_LINE = re.compile(r'^\s*OPCONFORM_CHECK\(\s*(k\w+)\s*,\s*"([^"]+)"\s*,')
INCLUDE_LINE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$')


def read_check_ids(path):
    """The check ids of a list generators/checks/<folder>.inc, in check order (its #includes
    followed)."""
    ids = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            include = INCLUDE_LINE.match(line)
            check = CHECK_LINE.match(line)
            if include:
                ids += read_check_ids(os.path.join(os.path.dirname(path), include.group(1)))
            elif check:
                ids.append(check.group(2))
            elif "OPCONFORM_CHECK" in line and not line.lstrip().startswith("//"):
                sys.exit("%s:%d: a check line this script cannot read: %s" % (path, number, line.strip()))
    if not ids:
        sys.exit("%s: no checks" % path)
    return ids


def dump(obj, indent=0):
    """JSON with one tensor per line."""
    pad = "  " * indent
    if isinstance(obj, dict) and "dtype" in obj:
        return json.dumps(obj, ensure_ascii=False, allow_nan=False)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = ['%s  %s: %s' % (pad, json.dumps(k), dump(v, indent + 1)) for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list) and any(isinstance(x, dict) for x in obj):
        if not obj:
            return "[]"
        return "[\n" + ",\n".join(pad + "  " + dump(x, indent + 1) for x in obj) + "\n" + pad + "]"
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


def write_or_check(vectors, vectors_dir, self_check, check_only):
    """Writes each (folder, name, vector) under vectors_dir, or with check_only lists the files
    that differ; 0 when they are written or up to date, else 1."""
    seen = set()
    stale = []
    for folder, name, v in vectors:
        key = (folder, name)
        assert key not in seen, key
        seen.add(key)
        self_check(folder, name, v)
        text = dump(v) + "\n"
        json.loads(text)
        path = os.path.join(vectors_dir, folder, name + ".json")
        if check_only:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        stale.append(path)
            except FileNotFoundError:
                stale.append(path)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if check_only and stale:
        print("out of date:\n  " + "\n  ".join(stale))
        return 1
    print("%d vectors %s" % (len(vectors), "up to date" if check_only else "written"))
    return 0
