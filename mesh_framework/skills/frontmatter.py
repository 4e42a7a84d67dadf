"""A `SKILL.md`'s YAML front matter, read as a host reads it: the block between the first line `---` and
the next line `---` (a byte order mark before it allowed), parsed with YAML 1.2's core schema, and checked
against the Agent Skills specification's fields.

YAML 1.2 rather than PyYAML's 1.1: the skill entry carries the front matter "verbatim as a JSON object"
and a host compares it field by field with its own parse of the file, so `yes`, `on` and `2026-09-01`
stay strings here as they do in the YAML 1.2 parsers hosts use (PyYAML alone makes them a boolean and a
date, which is not even JSON).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import yaml

from ..errors import MeshError

__all__ = ["SkillFileError", "check_frontmatter", "read_frontmatter"]

# The Agent Skills specification's fields (https://agentskills.io/specification).
NAME = re.compile(r"^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
_CLOSING = re.compile(r"^---[ \t]*$")


class SkillFileError(MeshError, ValueError):
    """A skill that cannot be served; the message starts with `path:line`."""


class _CoreLoader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2's core schema: only `true`/`false` are booleans, `null`/`~`
    null, decimal, `0o` and `0x` integers and plain floats numbers; everything else is a string."""


_CoreLoader.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in (
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", "~nN"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
):
    _CoreLoader.add_implicit_resolver(_tag, re.compile(_pattern), list(_first))
_CoreLoader.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"^$"), [""])


def _integer(loader: yaml.SafeLoader, node: yaml.Node) -> int:
    text = str(loader.construct_scalar(node))  # type: ignore[arg-type]
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def _float(loader: yaml.SafeLoader, node: yaml.Node) -> float:
    text = str(loader.construct_scalar(node)).lower()  # type: ignore[arg-type]
    if text.endswith(".inf"):
        return -math.inf if text.startswith("-") else math.inf
    if text == ".nan":
        return math.nan
    return float(text)


_CoreLoader.add_constructor("tag:yaml.org,2002:int", _integer)
_CoreLoader.add_constructor("tag:yaml.org,2002:float", _float)


def read_frontmatter(text: str, where: str) -> tuple[dict[str, Any], dict[str, int]]:
    """The front matter of a `SKILL.md` (its text) as JSON data, and the file line of each top-level key.
    Raises SkillFileError naming `where` (the file) and the line."""
    lines = (text[1:] if text.startswith("\ufeff") else text).split("\n")
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if lines[0] != "---":
        raise SkillFileError(
            f"{where}:1: a SKILL.md starts with YAML front matter between '---' lines "
            "(name: ..., description: ...)"
        )
    end = next((i for i in range(1, len(lines)) if _CLOSING.match(lines[i])), None)
    if end is None:
        raise SkillFileError(f"{where}:1: the front matter opened here is never closed by a '---' line")
    loader = _CoreLoader("\n".join(lines[1:end]))
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 2
        context, problem = getattr(exc, "context", None), getattr(exc, "problem", None)
        reason = ", ".join(str(p) for p in (context, problem) if p) or str(exc).splitlines()[0]
        raise SkillFileError(f"{where}:{line}: invalid YAML front matter: {reason}") from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise SkillFileError(f"{where}:2: the front matter must be a mapping (name: ..., description: ...)")
    assert isinstance(node, yaml.MappingNode)
    lines_of = {str(key.value): key.start_mark.line + 2 for key, _value in node.value}
    for key, value in data.items():
        line = lines_of.get(str(key), 2)
        problem = _not_json(key, value)
        if problem:
            raise SkillFileError(f"{where}:{line}: {problem}")
    return data, lines_of


def _not_json(key: Any, value: Any) -> str | None:
    """Why `key: value` cannot travel in a JSON object, or None."""
    if not isinstance(key, str):
        return f"front matter key {key!r} must be text (a JSON object's keys are strings)"
    if isinstance(value, float) and not math.isfinite(value):
        return f"'{key}' is {value}, which JSON cannot carry"
    if isinstance(value, Mapping):
        for inner_key, inner in value.items():
            problem = _not_json(inner_key, inner)
            if problem:
                return f"in '{key}': {problem}"
    elif isinstance(value, list):
        for inner in value:
            problem = _not_json(key, inner)
            if problem:
                return problem
    elif not isinstance(value, (str, int, float, bool)) and value is not None:
        return f"'{key}' holds a {type(value).__name__}, which JSON cannot carry"
    return None


def check_frontmatter(meta: Mapping[str, Any], lines: Mapping[str, int], folder: str, where: str) -> None:
    """The Agent Skills specification's fields: `name` (the skill's folder name: 1-64 lowercase letters,
    digits and single hyphens) and `description` (1-1024 characters) required; `license`, `compatibility`
    (at most 500 characters), `allowed-tools` text and `metadata` a mapping of text when present. Other
    fields pass through. Raises SkillFileError naming the file and the line."""

    def fail(key: str, message: str) -> SkillFileError:
        return SkillFileError(f"{where}:{lines.get(key, 2)}: {message}")

    name = meta.get("name")
    if name is None:
        raise fail("name", f"the front matter has no 'name'; add name: {folder}")
    if not isinstance(name, str) or not NAME.match(name):
        raise fail(
            "name",
            f"name {name!r} is invalid: use 1-64 lowercase letters, digits and hyphens, with no hyphen "
            "at either end and no two in a row",
        )
    if name != folder:
        raise fail("name", f"name '{name}' must be the skill's folder name '{folder}'; rename one of them")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise fail(
            "description", "the front matter needs a 'description': what the skill does and when to use it"
        )
    if len(description) > MAX_DESCRIPTION:
        raise fail("description", f"description is {len(description)} characters; at most {MAX_DESCRIPTION}")
    for key in ("license", "compatibility", "allowed-tools"):
        if key in meta and not isinstance(meta[key], str):
            raise fail(key, f"'{key}' must be text, not {type(meta[key]).__name__}")
    compatibility = meta.get("compatibility")
    if isinstance(compatibility, str) and len(compatibility) > MAX_COMPATIBILITY:
        raise fail(
            "compatibility",
            f"compatibility is {len(compatibility)} characters; at most {MAX_COMPATIBILITY}",
        )
    metadata = meta.get("metadata")
    if metadata is not None and not (
        isinstance(metadata, Mapping) and all(isinstance(v, str) for v in metadata.values())
    ):
        raise fail("metadata", "'metadata' must map keys to text values (version: '1.0', author: ...)")
