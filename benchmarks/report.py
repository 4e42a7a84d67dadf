"""Write docs/benchmarks.md and docs/benchmarks-mesh.md from the results files in benchmarks/results/.

No benchmark runs here: the pages are rewritten from the results committed in the repository (or those of
a new run). `--check` writes nothing and fails, listing the pages that differ, when a committed page is not
what the results give.

Usage: .venv/bin/python benchmarks/report.py [--results DIR] [--root DIR] [--check]
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from pages import render_pages  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=BENCH_DIR / "results", help="the results files")
    parser.add_argument("--root", type=Path, default=BENCH_DIR.parent, help="where docs/ is (the repository)")
    parser.add_argument("--check", action="store_true", help="compare with the pages instead of writing them")
    args = parser.parse_args()
    if not args.results.is_dir():
        print(f"report: {args.results} is not a folder of results", file=sys.stderr)
        return 2
    differ = []
    for name, text in render_pages(args.results).items():
        page = args.root / name
        current = page.read_text() if page.exists() else ""
        if args.check:
            if current != text:
                differ.append(name)
                diff = difflib.unified_diff(
                    current.splitlines(),
                    text.splitlines(),
                    f"{name} (committed)",
                    f"{name} (from the results)",
                )
                print("\n".join(list(diff)[:40]), file=sys.stderr)
        elif current != text:
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(text)
            print(f"report: wrote {name}", file=sys.stderr)
    if differ:
        print(
            f"report: {', '.join(differ)} differ from what benchmarks/report.py writes from the results; "
            "run .venv/bin/python benchmarks/report.py",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
