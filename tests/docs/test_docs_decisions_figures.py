"""A measured figure in docs/decisions.md cites the benchmark result that holds it.

The heuristic, kept simple on purpose:
- A paragraph is a top-level list item (`- ...` with its indented lines) or a block between blank lines.
- A figure is a number with a unit of time, size, share or ratio: ms, µs, MiB, MB, KiB,
  GiB, GB, %, x (the multiplication sign).
- It is *measured* when it is a ratio (`3.9x`), a range (`30-60 ms`), approximate (`~0.1 ms`, `about 26
  MiB`, `around`, `roughly`, `nearly`), a before/after (`570 → 420 µs`), or stands in a paragraph that
  says "measured" or "benchmark". An exact single value elsewhere is a setting or a limit ("reopened
  after 50 ms", "at most 1 MiB").
- A paragraph with a measured figure names at least one existing `benchmarks/results/<file>`, and the
  cited files hold each figure: a number that rounds to it at the figure's precision (`3.9x` is held by
  `3.8867...`), in the unit the paragraph uses. A figure no result holds is rephrased or removed.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]
DECISIONS = ROOT / "docs" / "decisions.md"

_NUMBER = r"\d+(?:\.\d+)?"
TIMES = "\N{MULTIPLICATION SIGN}"
_UNIT = f"(?:ms|µs|MiB|MB|KiB|GiB|GB|%|{TIMES})"
_BETWEEN = "(?:[-\N{EN DASH}\N{RIGHTWARDS ARROW}]|->)"  # a range or a before/after
FIGURE = re.compile(
    r"(?P<approx>~\s?|\b(?i:about|around|roughly|nearly)\s)?"
    rf"(?P<low>{_NUMBER})(?:\s?{_BETWEEN}\s?~?(?P<high>{_NUMBER}))?\s?(?P<unit>{_UNIT})(?![A-Za-z])"
)
CITATION = re.compile(r"benchmarks/results/[\w./-]+\w")
SAYS_MEASURED = re.compile(r"\bmeasured\b|\bbenchmark", re.IGNORECASE)


def paragraphs(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each paragraph; code blocks are left out."""
    found: list[tuple[int, str]] = []
    current: list[str] = []
    start = 0
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        ends = fenced or not line.strip() or line.startswith("#") or line.startswith("- ")
        if ends and current:
            found.append((start, "\n".join(current)))
            current = []
        if fenced or not line.strip() or line.startswith("#"):
            continue
        if not current:
            start = number
        current.append(line)
    if current:
        found.append((start, "\n".join(current)))
    return found


def measured_figures(paragraph: str) -> list[re.Match[str]]:
    says = SAYS_MEASURED.search(paragraph) is not None
    return [
        match
        for match in FIGURE.finditer(paragraph)
        if says or match["unit"] == TIMES or match["approx"] or match["high"] is not None
    ]


def held(figure: str, numbers: list[Decimal]) -> bool:
    """Whether one of `numbers` rounds to `figure` at the figure's precision."""
    wanted = Decimal(figure)
    step = Decimal(1).scaleb(wanted.as_tuple().exponent)  # type: ignore[arg-type]
    return any(abs(number - wanted) <= step / 2 for number in numbers)


def problems(text: str, results: Path) -> list[str]:
    found = []
    for line, paragraph in paragraphs(text):
        figures = measured_figures(paragraph)
        if not figures:
            continue
        shown = ", ".join(match[0].strip() for match in figures)
        cited = [results.parent.parent / path for path in CITATION.findall(paragraph)]
        existing = [path for path in cited if path.is_file()]
        if not existing:
            missing = f" ({', '.join(str(p.relative_to(results.parent.parent)) for p in cited)} not found)"
            found.append(
                f"decisions.md:{line}: {shown} cites no benchmarks/results/ file{missing if cited else ''}"
            )
            continue
        numbers = [
            Decimal(n) for path in existing for n in re.findall(r"-?\d+(?:\.\d+)?", path.read_text("utf-8"))
        ]
        for match in figures:
            for value in filter(None, (match["low"], match["high"])):
                if not held(value, numbers):
                    names = ", ".join(p.name for p in existing)
                    found.append(f"decisions.md:{line}: {match[0].strip()}: {value} is in none of {names}")
    return found


def test_every_measured_figure_cites_a_result_that_holds_it() -> None:
    found = problems(DECISIONS.read_text(encoding="utf-8"), ROOT / "benchmarks" / "results")
    assert found == [], (
        "cite the benchmarks/results/ file that holds each measured figure, or rephrase it:\n"
        + "\n".join(found)
    )


def test_the_heuristic(tmp_path: Path) -> None:
    results = tmp_path / "benchmarks" / "results"
    results.mkdir(parents=True)
    (results / "x.json").write_text('{"ratio": 3.8867, "mib": 26.34, "low": 30.2, "high": 59.9}')
    text = "\n".join(
        [
            "## Section",
            "",
            f"- **Cited.** It costs 3.9{TIMES} (`benchmarks/results/x.json`), about 26 MiB, 30-60 ms.",
            "- **Settings are not figures.** A stream is reopened after 50 ms; a task holds at most 1 MiB.",
            "- **Uncited.** The import takes 30-60 ms.",
            "- **Wrong file.** About 26 MiB (`benchmarks/results/nope.json`).",
            "  A second line: measured 12 ms.",
            f"- **Not held.** It costs 2.5{TIMES} (`benchmarks/results/x.json`).",
            "",
            "A plain paragraph: roughly 7% more",
            "over two lines.",
        ]
    )
    assert problems(text, results) == [
        "decisions.md:5: 30-60 ms cites no benchmarks/results/ file",
        "decisions.md:6: About 26 MiB, 12 ms cites no benchmarks/results/ file "
        "(benchmarks/results/nope.json not found)",
        f"decisions.md:8: 2.5{TIMES}: 2.5 is in none of x.json",
        "decisions.md:10: roughly 7% cites no benchmarks/results/ file",
    ]
