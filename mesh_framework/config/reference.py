"""The configuration reference: every framework setting with its type, default, environment names and
description, rendered as Markdown from `MeshSettings` itself (`python -m mesh_framework.config.reference`).
"""

from __future__ import annotations

import json
import sys
import types
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from .settings import MeshSettings
from .sources import ENV_PREFIX, ENV_PROFILES, MCP_MESH_ENV_NAMES

__all__ = ["reference_rows", "settings_reference"]


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _type_name(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_name(a) for a in typing.get_args(annotation))
    if origin is typing.Literal:
        return " | ".join(json.dumps(a) for a in typing.get_args(annotation))
    if origin is not None:
        arguments = ", ".join(_type_name(a) for a in typing.get_args(annotation))
        return f"{getattr(origin, '__name__', str(origin))}[{arguments}]"
    if annotation is type(None):
        return "null"
    return getattr(annotation, "__name__", str(annotation)).replace("SecretStr", "secret")


def _default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        value = field.default_factory()  # type: ignore[call-arg]
    elif field.default is PydanticUndefined:
        return "(required)"
    else:
        value = field.default
    if isinstance(value, BaseModel):
        return ""
    return "null" if value is None else json.dumps(value) if not isinstance(value, str) else value or '""'


def _section(annotation: Any) -> type[BaseModel] | None:
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def reference_rows(model: type[BaseModel] = MeshSettings, prefix: str = "") -> Iterator[tuple[str, ...]]:
    """(key, type, default, environment names, description) for every leaf setting."""
    mcp_mesh = {dotted: name for name, dotted in MCP_MESH_ENV_NAMES.items()}
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        nested = _section(field.annotation)
        if nested is not None:
            yield from reference_rows(nested, key + ".")
            continue
        env = [ENV_PROFILES if key == "profiles" else ENV_PREFIX + key.upper().replace(".", "__")]
        if key in mcp_mesh:
            env.append(mcp_mesh[key])
        yield key, _type_name(field.annotation), _default(field), ", ".join(env), field.description or ""


def settings_reference() -> str:
    lines = [
        "# Configuration reference",
        "",
        "Every framework setting: its key in `application.yaml`, type, default, environment variables and",
        "meaning, generated from `MeshSettings` (`python -m mesh_framework.config.reference`); a test keeps",
        "it current. Sections of your own (`@config_properties`) take `MESH_<SECTION>__<KEY>` the same way;",
        "`llm.<tool name>` takes the keys of `llm.defaults`; `agents.<agent name>` any key of this page.",
        "",
    ]
    section = ""
    for key, type_name, default, env, description in reference_rows():
        top = key.split(".")[0]
        if top != section:
            section = top
            lines += [
                "",
                f"## `{section}`",
                "",
                "| key | type | default | environment | description |",
                "|---|---|---|---|---|",
            ]
        cells = [f"`{key}`", f"`{type_name}`", f"`{default}`" if default else "", env, description]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(settings_reference())
