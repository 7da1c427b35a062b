#!/usr/bin/env python3
"""The docs' `exec:python3 my_adapter.py` in the docs test (run_doc_commands.py): an exec:
program that speaks the subprocess protocol by running opconform's own worker on the bundled
plug-in, both found beside the `opconform` first on PATH (the build tree's)."""
import os
import shutil
import sys

opconform = shutil.which("opconform")
if opconform is None:
    sys.exit("my_adapter.py: no opconform on PATH")
root = os.path.dirname(os.path.dirname(os.path.realpath(opconform)))
worker = os.path.join(root, "libexec", "opconform", "opconform-worker")
plugin = os.path.join(root, "lib", "opconform", "libopconform_optimized_plugin.so")
os.execv(worker, [worker, plugin])
