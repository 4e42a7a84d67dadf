"""System prompts: inline text, or `file://path` — a Jinja2 template rendered with the call's context.

Templates are loaded (and their syntax checked) at start-up, so a missing file or a template error stops
the agent naming the file and line. A relative path is taken from the folder of the module that declares
the tool, then from the working directory.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import ConfigError, display_path

__all__ = ["SystemPrompt", "load_system_prompt"]

FILE_PREFIX = "file://"


class SystemPrompt:
    """A prompt that renders the same text every time, or a Jinja2 template rendered per call."""

    def __init__(self, text: str, template: Any = None, source: str = "inline") -> None:
        self.text = text
        self.template = template
        self.source = source

    def render(self, context: Mapping[str, Any] | None = None) -> str:
        if self.template is None:
            return self.text
        try:
            return str(self.template.render(**dict(context or {})))
        except Exception as exc:  # a template error at run time: the call fails, the agent does not
            raise ConfigError(
                [f"{self.source}: the system prompt failed to render ({type(exc).__name__}: {exc})"]
            ) from None


def _jinja() -> Any:
    try:
        import jinja2
    except ImportError:  # pragma: no cover - jinja2 is a dependency
        raise ConfigError(["system prompt templates need Jinja2: pip install jinja2"]) from None
    return jinja2


def load_system_prompt(value: str | None, *, origin: str, base: Path | None = None) -> SystemPrompt | None:
    """Load (and check) a system prompt. `origin` says where the value was set, for error messages."""
    if value is None:
        return None
    if not value.startswith(FILE_PREFIX):
        if "{{" not in value and "{%" not in value:
            return SystemPrompt(value)
        return _compile(value, f"system prompt (from {origin})")
    raw = value[len(FILE_PREFIX) :]
    candidates = (
        [Path(raw)] if Path(raw).is_absolute() else [p / raw for p in (base, Path.cwd()) if p is not None]
    )
    path = next((c for c in candidates if c.is_file()), None)
    if path is None:
        where = ", ".join(display_path(c) for c in candidates)
        raise ConfigError([f"system_prompt = {value!r} (from {origin}): no such file (looked at {where})"])
    return _compile(path.read_text(encoding="utf-8"), display_path(path))


def _compile(text: str, source: str) -> SystemPrompt:
    jinja2 = _jinja()
    environment = jinja2.Environment(
        autoescape=False, undefined=jinja2.ChainableUndefined, keep_trailing_newline=True
    )
    try:
        template = environment.from_string(text)
    except jinja2.TemplateSyntaxError as exc:
        raise ConfigError(
            [f"{source}:{exc.lineno}: the system prompt is not a valid Jinja2 template ({exc.message})"]
        ) from None
    return SystemPrompt(text, template, source)
