"""Output of the `mesh` command: plain, stable text for scripts and pipes; rich tables and colour on a
terminal; JSON with `--json`.

Colour needs a terminal on stdout (not `TERM=dumb`) and no `NO_COLOR`; `rich` is imported only then.

Text from elsewhere (a registry's agent names, endpoints, tags; a tool's answer) never reaches the
terminal raw: control characters (C0, DEL, C1, and so every ANSI escape sequence, which starts with ESC
or CSI) are shown as visible escapes (`\\x1b`), so a name can neither clear the screen nor forge rows. Table
cells escape every one of them (line breaks included: one cell, one line); `echo` keeps line breaks and
tabs of multi-line text (a tool's answer); JSON escapes them as JSON does (`\\u009b`).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

__all__ = [
    "console",
    "echo",
    "emit_json",
    "escape_controls",
    "escape_text",
    "escaped",
    "is_terminal",
    "plain_table",
    "rich_table",
    "show_value",
]

_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROLS_BUT_LINES = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # keeps \t and \n
_JSON_RAW = re.compile(r"[\x7f-\x9f]")  # what json.dumps(ensure_ascii=False) leaves raw


def _visible(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def escape_controls(text: str) -> str:
    """`text` with every control character (line breaks included) as a visible escape: `\\x1b[2J`."""
    return _CONTROLS.sub(_visible, text)


def escape_text(text: str) -> str:
    """`text` (lines of it) with every control character but line breaks and tabs as a visible escape."""
    return _CONTROLS_BUT_LINES.sub(_visible, text)


def escaped(value: Any) -> Any:
    """`value` (JSON-like data from elsewhere) with every string in it passed through `escape_controls`."""
    if isinstance(value, str):
        return escape_controls(value)
    if isinstance(value, dict):
        return {escaped(k): escaped(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [escaped(v) for v in value]
    return value


def is_terminal(stream: Any = None) -> bool:
    """True when stdout (or `stream`) is an interactive terminal (tables and colour); false for pipes and
    files."""
    isatty = getattr(sys.stdout if stream is None else stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def echo(text: str = "") -> None:
    """A line (or lines) on stdout; control characters but line breaks and tabs shown escaped."""
    sys.stdout.write(escape_text(text) + "\n")
    sys.stdout.flush()


def _json_text(data: Any) -> str:
    """Indented JSON, DEL and C1 characters escaped too (json.dumps escapes only C0 when not ASCII)."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    return _JSON_RAW.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def emit_json(data: Any) -> None:
    """`data` as indented JSON on stdout (never coloured: `--json` is for programs)."""
    echo(_json_text(data))


def console(*, stderr: bool = False) -> Any:
    """A rich Console on stdout (or stderr); no colour or other styling when NO_COLOR is set (any
    non-empty value)."""
    from rich.console import Console

    plain = bool(os.environ.get("NO_COLOR"))
    return Console(
        stderr=stderr,
        color_system=None if plain else "auto",
        no_color=plain,
        highlight=False,
        markup=False,
        emoji=False,
    )


def plain_table(rows: Sequence[Sequence[str]], *, caps: Sequence[int]) -> None:
    """Columns padded to their widest cell (at most its cap), two spaces apart; the last one unpadded."""
    if not rows:
        return
    rows = [[escape_controls(cell) for cell in row] for row in rows]
    widths = [min(max(len(row[i]) for row in rows), cap) for i, cap in enumerate(caps)]
    for row in rows:
        cells = [f"{cell:<{widths[i]}}" for i, cell in enumerate(row[:-1])]
        echo("  ".join([*cells, row[-1]]).rstrip())


def rich_table(
    header: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    title: str | None = None,
    styles: Sequence[str | None] = (),
    wrap: Sequence[bool] = (),
) -> None:
    """A rich table on stdout; `styles` gives each column's style, `wrap` whether it may wrap (columns
    that may not keep their values whole, such as names and ids)."""
    from rich import box
    from rich.table import Table

    shown_title = escape_controls(title) if title is not None else None
    table = Table(title=shown_title, box=box.SIMPLE_HEAD, header_style="bold", title_justify="left")
    for i, name in enumerate(header):
        may_wrap = wrap[i] if i < len(wrap) else True
        style = styles[i] if i < len(styles) else None
        table.add_column(name, style=style, no_wrap=not may_wrap, overflow="fold" if may_wrap else "ellipsis")
    for row in rows:
        table.add_row(*(_cell(cell) for cell in row))
    console().print(table)


def _cell(cell: Any) -> Any:
    """A table cell with its control characters escaped (a rich `Text` keeps its style; only a line
    break between lines of a cell built as several lines is kept)."""
    from rich.text import Text

    if isinstance(cell, str):
        return escape_controls(cell)
    if isinstance(cell, Text) and _CONTROLS_BUT_LINES.search(cell.plain):
        return Text("\n".join(escape_controls(line) for line in cell.plain.split("\n")), style=cell.style)
    return cell


def show_value(value: Any) -> None:
    """A tool's answer: text as is; structured values as indented JSON (highlighted on a terminal)."""
    if isinstance(value, str):
        echo(value)
        return
    if is_terminal():
        from rich.highlighter import JSONHighlighter

        text = JSONHighlighter()(_json_text(value))  # what rich's JSON does, over our escaped text
        text.no_wrap = True
        console().print(text)
        return
    emit_json(value)
