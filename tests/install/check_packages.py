#!/usr/bin/env python3
"""Every program the test command calls comes from a package it installs (ctest "install").

    check_packages.py <opconform source dir>

README's two commands (`bash scripts/do.sh run|test`) install Debian packages, then build and
test. On a minimal Debian 12 (debootstrap --variant=minbase) a program is there only when apt
installs it: from a package in do.sh's lists (`bash scripts/do.sh packages`), from one of their
dependencies (Depends, Pre-Depends, recursively: --no-install-recommends), or from Debian's
essential or required set. For each program below, this finds it on the system PATH (not
/usr/local: dpkg does not own it), follows its links, asks dpkg which package owns each step
and fails unless one of them is installed that way. Debian only: it reads the dpkg database.
"""
import os
import shutil
import subprocess
import sys

# The programs the commands call, and who calls them.
PROGRAMS = {
    "bash": "scripts/do.sh, the install check",
    "sh": "ctest scripts",
    "apt-get": "do.sh: installs the packages",
    "dpkg-query": "do.sh: which packages are installed",
    "nproc": "do.sh: build parallelism",
    "timeout": "ctest scripts",
    "grep": "the install check",
    "find": "the install check",
    "realpath": "the install check",
    "npm": "do.sh test: npm ci for the TensorFlow.js adapters",
    "node": "npm, the TensorFlow.js adapters",
    "cmake": "do.sh, the install check",
    "ctest": "do.sh, the install check",
    "cpack": "the install check: cpack -G DEB",
    "ninja": "every preset's generator",
    "c++": "the g++ presets (CMake's default C++ compiler)",
    "g++": "the g++ presets",
    "cc": "the install check: plugin_abi.h as C99",
    "ar": "static libraries (g++ presets)",
    "ranlib": "static libraries (g++ presets)",
    "clang++": "the fuzz preset, the install check's fuzz target",
    "llvm-ar": "static libraries (clang presets)",
    "llvm-ranlib": "static libraries (clang presets)",
    "llvm-symbolizer": "ASan/UBSan reports in the fuzz smoke",
    "python3": "the build (mutant catalogue), corpus checks",
    "pkg-config": "the install check: opconform-plugin-abi.pc",
    "file": "cpack -G DEB (CPackDeb shlibdeps)",
    "dpkg-shlibdeps": "cpack -G DEB (CPackDeb shlibdeps)",
    "dpkg-deb": "the install check reads the .deb",
    "cp": "the install and oss-fuzz checks",
    "nm": "the oss-fuzz check: each target's symbols",
    "objdump": "build.sh (oss-fuzz): the OpenMP runtime's SONAME",
    "zip": "build.sh (oss-fuzz): each target's seed corpus",
    "unzip": "the oss-fuzz check unpacks the seed corpora",
    "clang": "the oss-fuzz check (CC)",
}
SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"


def listed_packages(src):
    out = subprocess.run(["bash", os.path.join(src, "scripts/do.sh"), "packages"],
                         check=True, capture_output=True, text=True).stdout
    return out.split()


def installed_packages():
    """{package: (essential, priority, names in Depends and Pre-Depends)} of installed packages."""
    out = subprocess.run(["dpkg-query", "-W", "-f=${Package}\t${Status}\t${Essential}\t${Priority}\t"
                          "${Depends}, ${Pre-Depends}\n"], check=True, capture_output=True, text=True).stdout
    packages = {}
    for line in out.splitlines():
        name, status, essential, priority, depends = line.split("\t")
        if not status.endswith(" installed"):
            continue
        names = {alt.split()[0].split(":")[0] for item in depends.split(",") for alt in item.split("|") if alt.strip()}
        packages[name] = (essential == "yes", priority, names)
    return packages


def installed_with(listed, packages):
    """{package: how it comes}: the listed ones and, recursively, their dependencies."""
    how = {p: "listed" for p in listed if p in packages}
    todo = list(how)
    while todo:  # breadth first: the shortest way to each
        p = todo.pop(0)
        for d in packages[p][2]:
            if d in packages and d not in how:
                how[d] = f"a dependency of {p}" if how[p] == "listed" else f"{how[p]} via {p}"
                todo.append(d)
    return how


def link_chain(path):
    """The path and every link it goes through, with the merged-/usr spelling of each."""
    chain = []
    while True:
        chain.append(path)
        for a, b in (("/usr/bin/", "/bin/"), ("/usr/sbin/", "/sbin/"), ("/usr/lib/", "/lib/")):
            if path.startswith(a):
                chain.append(b + path[len(a):])
            elif path.startswith(b):
                chain.append(a + path[len(b):])
        if not os.path.islink(path) or len(chain) > 40:
            return chain
        path = os.path.normpath(os.path.join(os.path.dirname(path), os.readlink(path)))


def owners(path):
    result = subprocess.run(["dpkg-query", "-S", path], capture_output=True, text=True)
    found = []
    for line in result.stdout.splitlines():
        if line.startswith("diversion by") or ": " not in line:
            continue
        found += [p.strip().split(":")[0] for p in line.split(": ", 1)[0].split(",")]
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    listed = listed_packages(sys.argv[1])
    packages = installed_packages()
    how = installed_with(listed, packages)
    missing = 0
    for program, caller in PROGRAMS.items():
        path = shutil.which(program, path=SYSTEM_PATH)
        if path is None:
            print(f"MISSING  {program}: not installed on {SYSTEM_PATH} ({caller})")
            missing += 1
            continue
        reasons = []  # the best first: listed, essential or required, a dependency
        for owner in (o for step in link_chain(path) for o in owners(step)):
            essential, priority, _ = packages.get(owner, (False, "", set()))
            if how.get(owner) == "listed":
                reasons.append((0, f"{owner}, listed"))
            elif essential or priority == "required":
                reasons.append((1, f"{owner}, {'essential' if essential else 'priority required'}"))
            elif owner in how:
                reasons.append((2, f"{owner}, {how[owner]}"))
        reason = min(reasons)[1] if reasons else None
        if reason is None:
            steps = ", ".join(f"{s} ({', '.join(owners(s)) or 'no package'})" for s in link_chain(path))
            print(f"MISSING  {program}: no package of scripts/do.sh's lists provides it ({caller}): {steps}")
            missing += 1
        else:
            print(f"ok       {program}: {path} from {reason}")
    print(f"{len(PROGRAMS) - missing} of {len(PROGRAMS)} programs come from the packages "
          f"scripts/do.sh installs ({len(listed)} listed)")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
