"""mypy sees a service parameter as the declared type: tests/typecheck/services_usage.py passes
`mypy --strict`, and misuse (a wrong argument type, a missing attribute of the typed result) is reported.

mypy checks every module the two files import (the framework, pydantic, ...), which costs ~8 CPU-s from
nothing: its incremental cache is kept under build/ (one a Python, as each has its own site-packages), so a
later run re-checks only what changed since (mypy's cache follows each module's interface)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "build" / "mypy-cache" / f"services-typing-py{sys.version_info.major}.{sys.version_info.minor}"

MISUSE = """\
from tests.typecheck.services_usage import MediaService


async def misuse(media: MediaService) -> None:
    caption = await media.caption(text=3)
    caption.missing
"""


@pytest.mark.timeout(180)
def test_mypy_checks_service_calls_as_calls_of_the_declared_type(tmp_path: Path) -> None:
    misuse = tmp_path / "misuse.py"
    misuse.write_text(MISUSE)
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(CACHE)]
    usage = "tests/typecheck/services_usage.py"
    run = subprocess.run(
        [*command, usage, str(misuse)], cwd=ROOT, check=False, capture_output=True, text=True, timeout=170
    )
    errors = sorted(line.split(": error: ")[1] for line in run.stdout.splitlines() if ": error: " in line)
    assert usage not in run.stdout, run.stdout
    assert errors == [
        '"Caption" has no attribute "missing"  [attr-defined]',
        'Argument "text" to "caption" of "MediaService" has incompatible type "int"; '
        'expected "str"  [arg-type]',
    ], run.stdout
