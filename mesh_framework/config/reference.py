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

from .fields import declared_fields
from .masking import SECRET_NAMES
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
    for name, field in declared_fields(model).items():
        key = f"{prefix}{name}"
        nested = _section(field.annotation)
        if nested is not None:
            yield from reference_rows(nested, key + ".")
            continue
        env = [ENV_PROFILES if key == "profiles" else ENV_PREFIX + key.upper().replace(".", "__")]
        if key in mcp_mesh:
            env.append(mcp_mesh[key])
        yield key, _type_name(field.annotation), _default(field), ", ".join(env), field.description or ""


_INTRO = """\
# Configuration reference

Every framework setting: its key in `application.yaml`, type, default, environment variables and
meaning, generated from `MeshSettings` (`python -m mesh_framework.config.reference`); a test keeps
it current. Sections of your own (`@config_properties`) take `MESH_<SECTION>__<KEY>` the same way;
`llm.<tool name>` takes the keys of `llm.defaults`; `agents.<agent name>` any key of this page.

## Placeholders

Values in `application.yaml` and `application-{profile}.yaml` may hold `${VAR}` placeholders,
resolved from the environment when the files are read, as Spring Boot does:

| written | value |
|---|---|
| `${VAR}` | the variable's value (an empty value counts as set); unset: start-up stops |
| `${VAR:default}` | the variable's value, or `default` when it is unset |
| `${VAR:-default}` | the variable's value, or `default` when it is unset or empty |
| `${env:VAR}` | the same as `${VAR}` |
| `$${` | a literal `${`: `$${HOME}` is the text `${HOME}` |

A placeholder may sit inside a longer text (`https://${HOST}/mcp`); any other `$` is kept as
written. Only environment variables are looked up, not other settings, and a default cannot hold
another placeholder. The result is validated like any value (`port: ${PORT:8080}` is a number),
and its origin names the variable (`config/application.yaml:3 via environment variable CI_TOKEN`,
or `via default (PORT not set)`) in `mesh config`, `--explain` and errors. An unset variable
without a default stops start-up with the key, file, line and variable:

    auth.tokens.0.token (from config/application.yaml:3): ${CI_TOKEN}: the variable CI_TOKEN is \
not defined; set it or write ${CI_TOKEN:default}

Values under `mcp.servers` are catalog entries: they follow the catalog's rules (the same, without
`${VAR:default}`) and are resolved when the catalog is read. Name these variables without the
`MESH_` prefix: the environment layer reads every `MESH_...` variable as a setting of its own.

## Settings nothing reads

A key that a section this agent reads does not have (a framework section, an `llm.<tool name>`
section, a `@config_properties` class) stops start-up with the closest known name:

    tools.timout (from config/application.yaml:8): 'tools' has no setting 'timout'; did you mean \
'timeout'?

A top-level section that nothing of this agent reads is warned when its name is close to a known
one (`greting`), and otherwise taken for another agent's (several agents share the files);
`config.strict: true` makes every such section an error. `mesh config` shows the settings anyway
and lists these problems on stderr (and under `problems` with `--json`).

## Secrets

`mesh config` (table, `--json`, `--explain`) and error messages show `******` for a secret: a
setting of type `secret` below (`SecretStr`); a field of a `@config_properties` class that is a
`SecretStr` or is marked `Annotated[str, SECRET]` (`from mesh_framework.config.masking import
SECRET`); a key whose name is one of NAMES, or ends with `_` and one of them (`db_password`,
`github_token`); every `mcp.servers.*.env` value and credential header. Names are compared by
whole words: `llm.defaults.max_tokens` is shown. In every other value, the password of a URL is
masked (`http://user:******@host:8000`; a user-info with no password, often a token, is masked
whole): `registry.url`, `registry.urls`, `tracing.endpoint`, `llm.vendors.*.base_url`, ...

An error message masks a bad value whole when its key is a secret, when it stands where a section
holding secrets belongs (`auth: my-token`), or when a `${VAR}` placeholder of a secret-named
variable supplied it (`${GITHUB_TOKEN}`); it still names the key, the origin and the reason.
"""


def settings_reference() -> str:
    lines = [_INTRO.replace("NAMES", ", ".join(sorted(SECRET_NAMES)))]
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
