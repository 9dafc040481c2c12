"""Runs Python scripts for tests/browser/python-blocks.test.mjs, each in an interpreter of its own
that has already imported NumPy and PyTorch.

Started as `/usr/bin/python3 python-fork.py` (with the environment a script should run in, its
LD_LIBRARY_PATH choosing the BLAS). It imports numpy, then torch, and nothing else of its own;
then, for every request line on stdin, a JSON object {"id", "file", "stdout", "stderr"}, it
forks. The child sends its standard output and error (file descriptors 1 and 2, so C code's
output too) to the two files named, runs the script as `python3 file` would (runpy, as
"__main__", sys.argv and sys.path[0] set from the file) and exits with the script's exit code;
an exception ends it with its traceback on stderr and code 1, as python3 does. The server waits
for the child and answers {"id", "code"} on its stdout, one line per request.

Why: starting python3 and importing PyTorch costs about 2.5 s of CPU per script, and the test
runs about a hundred scripts. A fork starts each one from that point instead, in a fresh copy of
an interpreter that has run nothing else: no number drawn, no print option set, no warning shown.
(One difference from a new python3: an unseeded np.random starts from the same state in every
child. The page's scripts all seed first.)
NumPy is imported first, as the scripts import it, so that its BLAS is bound before PyTorch's
libraries are loaded (Python loads extension modules with RTLD_NOW).
"""

import json
import os
import runpy
import sys
import traceback

import numpy  # noqa: F401  (imported for the children)
import torch  # noqa: F401

replies = os.fdopen(os.dup(1), "w", encoding="utf-8")


def run_child(request):
    """In the forked child: run one script with its output in the files named; never returns."""
    code = 1
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
            target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(target, fd)
            os.close(target)
        path = os.path.abspath(request["file"])
        sys.argv = [path]
        sys.path[0] = os.path.dirname(path)
        try:
            runpy.run_path(path, run_name="__main__")
            code = 0
        except SystemExit as e:
            if e.code is None:
                code = 0
            elif isinstance(e.code, int):
                code = e.code
            else:
                print(e.code, file=sys.stderr)
                code = 1
        except BaseException:  # noqa: BLE001  (as python3 reports any uncaught exception)
            traceback.print_exc()
            code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


for line in sys.stdin:
    if not line.strip():
        continue
    request = json.loads(line)
    # Nothing buffered may be copied into the child and written twice.
    sys.stdout.flush()
    sys.stderr.flush()
    replies.flush()
    pid = os.fork()
    if pid == 0:
        run_child(request)
    _, status = os.waitpid(pid, 0)
    replies.write(json.dumps({"id": request["id"], "code": os.waitstatus_to_exitcode(status)}) + "\n")
    replies.flush()
