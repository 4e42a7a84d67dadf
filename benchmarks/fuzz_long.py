"""The fuzz suite with a long budget: `python benchmarks/fuzz_long.py [EXAMPLES]` (default 2000 per test).

Runs tests/server/test_fuzz_mcp.py, test_fuzz_registry.py and test_fuzz_files.py with FUZZ_EXAMPLES set (the
test command runs the same properties with fewer examples). Results: benchmarks/results/fuzz.json, with
pytest's summary line and the exit status (benchmarks/report.py writes the page from it).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import ROOT, Run, save_results

FILES = [
    "tests/server/test_fuzz_mcp.py",
    "tests/registry/test_fuzz_registry.py",
    "tests/settings/test_fuzz_files.py",
]


def main() -> int:
    examples = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    run = Run(short=examples < 500)
    env = {**os.environ, "FUZZ_EXAMPLES": str(examples)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *FILES]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    print(done.stdout[-3000:], done.stderr[-2000:], sep="\n")
    lines = [line for line in done.stdout.strip().splitlines() if line.strip()]
    save_results(
        "fuzz",
        run,
        {
            "examples": examples,
            "files": FILES,
            "exit_status": done.returncode,
            "summary": lines[-1].strip("= ") if lines else "",
            "failed": [line.removeprefix("FAILED ").strip() for line in lines if line.startswith("FAILED ")],
        },
    )
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
