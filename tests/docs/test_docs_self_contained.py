"""The published docs stand alone: no references a reader of the repository cannot follow.

Design notes, issue trackers and the material the project was started from are not part of the
repository, so the docs state facts and reasons themselves instead of citing them; nor do they name
paths of the machine they were written on.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

UNREADABLE = re.compile(
    r"DESIGN(?:\.md)?\b"  # the design notes
    r"|PROTOCOL\.md|DI_AND_SETTINGS\.md|MCP_MESH[A-Z_]*\.md"  # research and interop notes
    r"|\bseeds?\b(?: \d+|/| documents?)"  # the documents the project was started from
    r"|\bissues? #?\d+"  # issue numbers
    r"|\.\./shared\b|\bshared/(?:interop|research|seeds)\b"
    r"|(?<![\w.])/(?:work|root)/",  # absolute machine paths
    re.IGNORECASE,
)


def published_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "mkdocs.yml", ROOT / "benchmarks" / "README.md"]
    files += sorted((ROOT / "docs").rglob("*.md"))
    files += sorted((ROOT / "starter_app").rglob("*.md"))
    files += sorted((ROOT / "mesh_framework" / "scaffold").rglob("*.md*"))
    return [path for path in files if path.is_file()]


@pytest.mark.parametrize("path", published_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_reference_a_reader_cannot_follow(path: Path) -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r} in {line.strip()[:100]!r}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        for match in UNREADABLE.finditer(line)
    ]
    assert not found, "state the fact or reason itself:\n" + "\n".join(found)


def test_the_pattern_catches_what_it_must() -> None:
    for text in (
        "as DESIGN.md §4 says",
        "DESIGN §3",
        "see PROTOCOL.md",
        "issue 11",
        "seed 002's layout",
        "../shared/x",
        "/root/checkout/x",
    ):
        assert UNREADABLE.search(text), text
    for text in ("the issuer claim", "tissue 12", "seeded 3 times", "the docs/ folder", "a /tmp folder"):
        assert not UNREADABLE.search(text), text
