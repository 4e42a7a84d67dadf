"""Output of the `mesh` command: plain, stable text for scripts and pipes; rich tables and colour on a
terminal; JSON with `--json`.

Colour needs a terminal on stdout (not `TERM=dumb`) and no `NO_COLOR`; `rich` is imported only then.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["console", "echo", "emit_json", "is_terminal", "plain_table", "rich_table", "show_value"]


def is_terminal(stream: Any = None) -> bool:
    """True when stdout (or `stream`) is an interactive terminal (tables and colour); false for pipes and
    files."""
    isatty = getattr(sys.stdout if stream is None else stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def echo(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def emit_json(data: Any) -> None:
    """`data` as indented JSON on stdout (never coloured: `--json` is for programs)."""
    echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


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

    table = Table(title=title, box=box.SIMPLE_HEAD, header_style="bold", title_justify="left")
    for i, name in enumerate(header):
        may_wrap = wrap[i] if i < len(wrap) else True
        style = styles[i] if i < len(styles) else None
        table.add_column(name, style=style, no_wrap=not may_wrap, overflow="fold" if may_wrap else "ellipsis")
    for row in rows:
        table.add_row(*row)
    console().print(table)


def show_value(value: Any) -> None:
    """A tool's answer: text as is; structured values as indented JSON (highlighted on a terminal)."""
    if isinstance(value, str):
        echo(value)
        return
    if is_terminal():
        from rich.json import JSON

        console().print(JSON.from_data(value, default=str))
        return
    emit_json(value)
