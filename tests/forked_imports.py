"""What a fresh interpreter imports while it runs some code, read without paying the framework's import once
per question: one process (started and stopped by the test, by PID) imports `mesh_framework.app`, and forks
a child per question, which runs the code and answers what it printed. The code must begin with that
import, as a fresh interpreter would: a fork holds exactly the modules such an interpreter holds after it
(the import is what costs the most CPU in a fresh interpreter; a fork costs a few milliseconds).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.agents import ROOT, stop

__all__ = ["Forks", "forks"]

# The forking process: it imports what every question's code begins with, then serves one JSON question a
# line on stdin ({"code", "argv", "directory"}) with one JSON answer a line on stdout ({"returncode",
# "stdout", "stderr"}). The child runs in `directory` (first on sys.path, as `python -c` in it would be)
# and reads `sys.argv[1:]` = argv.
SERVER = """
import json, os, sys
from mesh_framework.app import MeshApplication

for line in sys.stdin:
    question = json.loads(line)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        import io
        printed, code = io.StringIO(), 0
        sys.stdout, sys.argv = printed, ["-c", *question["argv"]]
        os.chdir(question["directory"])
        sys.path.insert(0, question["directory"])
        try:
            exec(compile(question["code"], "<question>", "exec"), {"__name__": "__main__"})
            said = ""
        except BaseException:
            import traceback
            code, said = 1, traceback.format_exc()
        answer = {"returncode": code, "stdout": printed.getvalue(), "stderr": said}
        with os.fdopen(write, "w") as out:
            out.write(json.dumps(answer))
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as answered:
        text = answered.read()  # to its end (the child's exit) before waiting: a long answer fills a pipe
    _pid, status = os.waitpid(pid, 0)
    if not text:
        text = json.dumps({"returncode": status, "stdout": "", "stderr": "the child ended without answering"})
    sys.__stdout__.write(text + "\\n")
    sys.__stdout__.flush()
"""


@dataclass
class Forks:
    process: subprocess.Popen[str]

    def run(self, code: str, argv: list[str], directory: Path) -> subprocess.CompletedProcess[str]:
        """`python -c CODE ARGV...` in `directory`, as a fork of the process: what it printed; its end."""
        assert self.process.stdin is not None and self.process.stdout is not None
        question = {"code": code, "argv": argv, "directory": str(directory)}
        self.process.stdin.write(json.dumps(question) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, f"the forking process ended (exit {self.process.poll()})"
        answer = json.loads(line)
        return subprocess.CompletedProcess(
            ["python", "-c", code, *argv], answer["returncode"], answer["stdout"], answer["stderr"]
        )


@contextmanager
def forks() -> Iterator[Forks]:
    """The forking process, in an environment without MESH_/MCP_MESH_ settings, this checkout on its path."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_"))}
    environ["PYTHONPATH"] = str(ROOT)
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER],
        cwd=ROOT,
        env=environ,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        yield Forks(process)
    finally:
        assert process.stdin is not None
        process.stdin.close()  # its loop ends
        stop(process)
        assert process.stdout is not None
        process.stdout.close()
