"""Running a docs page's examples as a reader types them into a fresh `mesh new` project.

A titled block (```python title="docs_x/__init__.py"```) is a file of the project; every other Python block
runs alone, in a fresh namespace, unless the paragraph right before it says "Continuing the block above"
(it then runs in the namespace of the nearest untitled Python block above it, as a continuation of that
one). `run_page` runs the blocks in a child process whose working directory is the project, where the
framework is importable only as the installed package (the wheel built from this checkout, unpacked
into a folder of its own): neither the checkout (`starter_app`, `tests`, `benchmarks`) nor an example that
the page did not write can be imported by accident. `run_examples` is the older in-process form, kept for
tests that need the examples' objects afterwards.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from mesh_framework.scaffold import create_project

ROOT = Path(__file__).resolve().parent.parent
UV = ROOT / ".tools" / "bootstrap" / "bin" / "uv"
BLOCK = re.compile(r'```(\w+)(?: title="([^"]+)")?\n(.*?)```', flags=re.S)
FENCE = re.compile(r'^```(\w+)(?: title="([^"]+)")?\n(.*?)^```', flags=re.S | re.M)
CONTINUES = re.compile(r"\bcontinuing the block above\b", re.I)
PROJECT = "shop"  # the `mesh new shop` project the pages' examples run in

Block = tuple[str, str, str]  # kind, title ("" when none), code


@dataclass(frozen=True)
class PageBlock:
    kind: str
    title: str  # "" when none
    code: str
    line: int  # the line of the page the code starts on
    continues: bool  # the paragraph before it says "Continuing the block above"


def page_blocks(text: str) -> list[PageBlock]:
    """Every fenced block of a page, with the line its code starts on and whether it continues."""
    found = []
    end = 0
    for match in FENCE.finditer(text):
        before = text[end : match.start()].strip().split("\n\n")[-1]
        line = text.count("\n", 0, match.start(3)) + 1
        kind, title, code = match.group(1), match.group(2) or "", match.group(3)
        found.append(PageBlock(kind, title, code, line, bool(CONTINUES.search(before))))
        end = match.end()
    return found


def chains(blocks: list[PageBlock]) -> list[list[PageBlock]]:
    """The untitled Python blocks, grouped: a block that continues joins the group of the one above."""
    groups: list[list[PageBlock]] = []
    for block in blocks:
        if block.kind != "python" or block.title:
            continue
        if block.continues:
            assert groups, f"line {block.line}: says it continues the block above, but no block is above it"
            groups[-1].append(block)
        else:
            groups.append([block])
    return groups


def section(text: str, title: str) -> str:
    """The part of a page under `## title`, up to the next `## ` heading."""
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def section_lines(text: str, title: str) -> str:
    """`section`, with the lines above it blanked, so that block lines stay the page's own."""
    body = section(text, title)
    start = text.index(body)
    return "\n" * text.count("\n", 0, start) + body


@pytest.fixture(scope="session")
def framework_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding mesh_framework as a user gets it: this checkout's wheel, built and unpacked."""
    out = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(out)
    site = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def build_wheel(out: Path) -> Path:
    """The wheel of this checkout, built into `out` with uv (offline: the build backend is cached)."""
    uv = str(UV) if UV.exists() else shutil.which("uv")
    assert uv, "uv is missing: run scripts/bootstrap.sh"
    result = subprocess.run(
        [uv, "build", "--wheel", "--out-dir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    [wheel] = out.glob("*.whl")
    return wheel


def wheel_top_level(wheel: Path) -> set[str]:
    """The top-level names a wheel installs (packages, modules, its .dist-info)."""
    with zipfile.ZipFile(wheel) as archive:
        return {name.split("/")[0] for name in archive.namelist()}


def new_project(folder: Path, *, llm: bool = False, catalog: bool = False) -> Path:
    """A fresh `mesh new shop` project (with `--llm`, `--catalog` as asked)."""
    return create_project(PROJECT, directory=folder / PROJECT, llm=llm, catalog=catalog)


RUNNER = """
import importlib.util, json, os, sys, traceback

spec = json.load(open(sys.argv[1]))
checkout = os.path.realpath(spec["checkout"])
# The interpreter's own start-up may have put the checkout on sys.path (an editable install); a user's
# project has only its own folder and the installed framework.
sys.path[:] = [spec["project"], spec["site"]] + [
    p for p in sys.path[1:] if p and os.path.realpath(p) not in (checkout, os.path.realpath(os.getcwd()))
]
import mesh_framework
assert mesh_framework.__file__.startswith(spec["site"]), mesh_framework.__file__
for name in ("starter_app", "tests", "benchmarks"):
    found = importlib.util.find_spec(name)
    where = os.path.realpath(found.origin or "") if found else ""
    assert not where.startswith(checkout + os.sep), f"the checkout's {name} is importable: {where}"
failures = []
for number, chain in enumerate(spec["chains"]):
    namespace = {"__name__": f"docs_{spec['stem']}_example_{number}"}
    try:
        for line, code in chain:
            exec(compile("\\n" * (line - 1) + code, spec["source"], "exec", dont_inherit=True), namespace)
    except BaseException:
        failures.append(f"{spec['source']}: the block at line {chain[0][0]}:\\n{traceback.format_exc()}")
    for module in [m for m in sys.modules if m.split(".")[0] in spec["packages"]]:
        del sys.modules[module]
print("\\n".join(failures), file=sys.stderr)
sys.exit(1 if failures else 0)
"""


def run_page(
    text: str,
    source: Path,
    project: Path,
    site: Path,
    *,
    files: set[str],
    runs: int,
    python_files_only: bool = False,
    timeout: float = 90,
) -> str:
    """Write the page's titled blocks (only Python ones with `python_files_only`) into `project`, checking
    they are `files`; run its `runs` examples (see `chains`) in a child process, each alone in a fresh
    namespace, in the project folder, with the framework only as the installed package and no
    `MESH_`/`MCP_MESH_` variable set. Returns what the examples printed."""
    blocks = page_blocks(text)
    written = {b.title: b.code for b in blocks if b.title and (b.kind == "python" or not python_files_only)}
    assert set(written) == files
    for name, code in written.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
    groups = chains(blocks)
    assert len(groups) == runs
    spec = {
        "checkout": str(ROOT),
        "project": str(project),
        "site": str(site),
        "source": str(source.relative_to(ROOT)),
        "stem": source.stem.replace("-", "_"),
        "chains": [[(b.line, b.code) for b in chain] for chain in groups],
        "packages": sorted({name.split("/")[0] for name in written} | {PROJECT}),
    }
    work = project.parent / f".{source.stem}-runner"
    work.mkdir(exist_ok=True)
    (work / "spec.json").write_text(json.dumps(spec))
    (work / "runner.py").write_text(RUNNER)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_", "PYTHON"))}
    result = subprocess.run(
        [sys.executable, str(work / "runner.py"), str(work / "spec.json")],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, f"{result.stderr}\n{result.stdout}"
    return result.stdout


def run_examples(
    blocks: list[Block],
    source: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    files: set[str],
    runs: int,
    python_files_only: bool = False,
) -> dict[str, object]:
    """In process: write the titled blocks (only Python ones with `python_files_only`) under `tmp_path`,
    checking they are `files`; run the `runs` untitled Python blocks there in order, in one namespace (which
    is returned), with no `MESH_`/`MCP_MESH_` variable set; unload the project's packages afterwards."""
    written = {
        title: code for kind, title, code in blocks if title and (kind == "python" or not python_files_only)
    }
    assert set(written) == files
    for name, code in written.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    for key in [k for k in os.environ if k.startswith(("MESH_", "MCP_MESH_"))]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    codes = [code for kind, title, code in blocks if kind == "python" and not title]
    assert len(codes) == runs
    packages = {name.split("/")[0] for name in written}
    namespace: dict[str, object] = {"__name__": f"docs_{source.stem.replace('-', '_')}_page"}
    try:
        for code in codes:
            exec(compile(code, str(source), "exec", dont_inherit=True), namespace)
    finally:
        for module in [m for m in sys.modules if m.split(".")[0] in packages]:
            del sys.modules[module]
    return namespace


def docs_pages() -> Iterator[Path]:
    yield from sorted((ROOT / "docs").glob("*.md"))
