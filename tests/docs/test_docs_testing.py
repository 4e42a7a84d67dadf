"""docs/testing.md: its test file passes as the test suite of the `mesh new shop --agent billing --llm`
project it names, run by pytest with the framework installed from the wheel (its pytest plugin included)
and neither the checkout nor its `starter_app` on the path; `mesh_cluster` starts real agents."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mesh_framework.scaffold import create_project

from ..agents import ROOT
from ..docs_examples import framework_site  # noqa: F401 (fixture)

DOC = ROOT / "docs" / "testing.md"

pytestmark = pytest.mark.timeout(150)

# Every interpreter of the run (pytest's and the agents' mesh_cluster starts) imports this before any user
# code: it takes off the path the checkout this venv's editable install puts there.
SITECUSTOMIZE = """
import os, sys

_checkout = os.path.realpath(os.environ["DOCS_CHECKOUT"])
sys.path[:] = [p for p in sys.path if not p or os.path.realpath(p) != _checkout]
"""

RUNNER = """
import importlib.util, sys

import mesh_framework

assert mesh_framework.__file__.startswith(sys.argv[1]), mesh_framework.__file__
found = importlib.util.find_spec("starter_app")
assert found is None, f"the checkout's starter_app is importable: {found.origin}"
import pytest

# -p no:asyncio: this venv has pytest-asyncio (a user's need not), which warns about its unset options
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:asyncio", "tests/test_docs.py"]))
"""


def test_the_testing_page_examples_pass(tmp_path: Path, framework_site: Path) -> None:  # noqa: F811
    [block] = [b for b in re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S) if "def test_" in b]
    project = create_project("shop", directory=tmp_path / "shop", agents=["billing"], llm=True)
    (project / "tests" / "test_docs.py").write_text(block)
    boot = tmp_path / "boot"
    boot.mkdir()
    (boot / "sitecustomize.py").write_text(SITECUSTOMIZE)
    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER)
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_", "PYTEST_", "PYTHON"))
    }
    env["PYTHONPATH"] = os.pathsep.join([str(boot), str(framework_site)])
    env["DOCS_CHECKOUT"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, str(runner), str(framework_site)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 passed" in result.stdout, result.stdout
