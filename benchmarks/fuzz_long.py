"""The fuzz suite with a long budget: `python benchmarks/fuzz_long.py [EXAMPLES]` (default 2000 per test).

Runs tests/test_fuzz_mcp.py, test_fuzz_registry.py and test_fuzz_files.py with FUZZ_EXAMPLES set,
and prints the pytest summary and the wall time. Results go in docs/benchmarks.md ("Fuzzing, long run").
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    examples = sys.argv[1] if len(sys.argv) > 1 else "2000"
    env = {**os.environ, "FUZZ_EXAMPLES": examples}
    started = time.monotonic()
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_fuzz_mcp.py"]
    command += ["tests/test_fuzz_registry.py", "tests/test_fuzz_files.py"]
    status = subprocess.call(command, cwd=ROOT, env=env)
    print(f"fuzz: {examples} examples per test, exit {status}, {time.monotonic() - started:.0f} s")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
