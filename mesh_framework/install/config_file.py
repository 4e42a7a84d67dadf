"""A client's JSON configuration file: read strictly, one server entry merged in, written back safely.

    change = plan_change(path, "mcpServers", "mesh", entry)   # reads, never writes
    change.diff()                                              # a unified diff ('' when unchanged)
    backup = change.write()                                    # FILE.<time>.bak, then FILE replaced

Every other key and entry is kept, in its order; the file's indentation (spaces or tabs) is kept. A file
that is not strict JSON (comments, trailing commas, a syntax error) is a `ConfigFileError` naming the file
and line, and is never rewritten: rewriting it would drop the comments.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import MeshError

__all__ = ["ConfigFileError", "FileChange", "backup_path", "plan_change", "read_config"]

_INDENT = re.compile(r"^([ \t]+)\S", re.MULTILINE)


class ConfigFileError(MeshError):
    """A client's configuration file that cannot be read or merged into; it is left as it is."""


def read_config(path: Path) -> tuple[dict[str, Any], str]:
    """The JSON object in `path` and its text; an absent or empty file is an empty object."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigFileError(f"cannot read {path}: {exc}") from None
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigFileError(_syntax_problem(path, text, exc)) from None
    if not isinstance(data, dict):
        raise ConfigFileError(
            f"{path}:1: holds a JSON {type(data).__name__}, not an object; fix the file or move it aside"
        )
    return data, text


def _syntax_problem(path: Path, text: str, exc: json.JSONDecodeError) -> str:
    where = f"{path}:{exc.lineno}:{exc.colno}"
    rest = text[exc.pos :]
    if rest.startswith(("//", "/*")):
        return (
            f"{where}: a comment; mesh install does not rewrite a file with comments (they would be lost): "
            "remove them, or add the entry by hand"
        )
    before = text[: exc.pos].rstrip()
    trailing = before.endswith(",") and rest.lstrip().startswith(("}", "]"))
    if exc.msg.startswith("Illegal trailing comma"):  # Python 3.13 names it, at the comma itself
        after = exc.pos + 1 + len(text[exc.pos + 1 :]) - len(text[exc.pos + 1 :].lstrip())
        line, column = text.count("\n", 0, after) + 1, after - text.rfind("\n", 0, after)
        where = f"{path}:{line}:{column}"
        trailing = True
    if trailing:  # where the comma's value should have been, on every Python
        return f"{where}: a trailing comma, which JSON does not allow; remove it and run mesh install again"
    return f"{where}: not valid JSON ({exc.msg}); fix the file and run mesh install again"


def _indent(text: str) -> str | int:
    found = _INDENT.search(text)
    if found is None:
        return 2
    prefix = found.group(1)
    return "\t" if prefix.startswith("\t") else len(prefix)


def render(data: dict[str, Any], indent: str | int = 2) -> str:
    return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class FileChange:
    """One server entry merged into one file: the text before and after, and what it does."""

    path: Path
    name: str
    before: str
    after: str
    exists: bool
    replaced: dict[str, Any] | None  # the entry of that name it replaces, if any

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        """The change as a unified diff ('' when nothing changes)."""
        if not self.changed:
            return ""
        lines = difflib.unified_diff(
            self.before.splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile=f"{self.path}" if self.exists else "/dev/null",
            tofile=f"{self.path}",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def write(self, *, now: float | None = None) -> Path | None:
        """Write the new text (a temporary file beside it, then renamed over it, its permissions kept);
        an existing file is copied to a backup first, whose path is returned (None for a new file)."""
        if not self.changed:
            return None
        backup: Path | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.exists:
                backup = backup_path(self.path, time.time() if now is None else now)
                shutil.copy2(self.path, backup)
            fd, temporary = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    out.write(self.after)
                if self.exists:
                    shutil.copymode(self.path, temporary)
                os.replace(temporary, self.path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise ConfigFileError(f"cannot write {self.path}: {exc}") from None
        return backup


def backup_path(path: Path, now: float) -> Path:
    """`FILE.YYYYMMDD-HHMMSS.bak` beside `path` (`-2`, `-3`, ... when that name is taken)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    candidate = path.with_name(f"{path.name}.{stamp}.bak")
    count = 1
    while candidate.exists():
        count += 1
        candidate = path.with_name(f"{path.name}.{stamp}-{count}.bak")
    return candidate


def plan_change(path: Path, key: str, name: str, entry: dict[str, Any]) -> FileChange:
    """`entry` as server `name` under `key` of the file at `path` (which is only read)."""
    try:
        data, before = read_config(path)
    except ConfigFileError as exc:
        shown = json.dumps({name: entry}, ensure_ascii=False)[1:-1]
        raise ConfigFileError(f"{exc} (the entry, under '{key}': {shown})") from None
    servers = data.get(key)
    if servers is None:
        servers = {}
    elif not isinstance(servers, dict):
        line = _line_of_key(before, key)
        raise ConfigFileError(
            f"{path}:{line}: '{key}' is a JSON {type(servers).__name__}, not an object of servers; "
            "fix the file and run mesh install again"
        )
    replaced = servers.get(name)
    if replaced == entry:
        return FileChange(path, name, before, before, path.exists(), None)
    merged = dict(data)
    merged[key] = {**servers, name: entry}
    after = render(merged, _indent(before))
    return FileChange(
        path, name, before, after, path.exists(), replaced if isinstance(replaced, dict) else None
    )


def _line_of_key(text: str, key: str) -> int:
    at = text.find(json.dumps(key))
    return text.count("\n", 0, at) + 1 if at >= 0 else 1
