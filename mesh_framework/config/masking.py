"""Which settings are secrets, and their values masked (`******`) wherever a value is shown.

A setting is secret when its model declares it so (a `SecretStr` field, or the `SECRET` marker in its
metadata: `password: Annotated[str, SECRET]`), when its own name is one of `SECRET_NAMES` or ends with one
as its last words (`db_password`, `github_token`: for data no model types, such as raw sections and
`model_params`), and every value of an MCP server's `env` and its credential headers. Names are compared by
whole words, never as substrings: `max_tokens` and `token_budget` are not secrets.

Every other text value keeps its shape but not the password of a URL in it (`http://user:******@host`; a
user-info without a password, often a token, is masked whole): any setting may hold such a URL
(`registry.url`, `tracing.endpoint`, a vendor's `base_url`, ...).
"""

from __future__ import annotations

import re
import typing
from collections.abc import Mapping
from typing import Any, Final

from pydantic import BaseModel, SecretStr

from .fields import Step, declared_fields, follow
from .sources import normalize_key
from .url_masking import URL_MASK, mask_url_credentials

__all__ = [
    "MASK",
    "SECRET",
    "SECRET_NAMES",
    "SECRET_WORDS",
    "holds_secret",
    "is_secret",
    "is_secret_header",
    "is_secret_name",
    "mask_url_credentials",
    "masked",
    "printable",
]

MASK = URL_MASK
# Keys that are secrets by name, wherever they are: the (normalized) name is one of these, or ends with
# `_` and one of these.
SECRET_NAMES = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "secret",
        "client_secret",
        "token",
        "access_token",
        "refresh_token",
        "api_key",
        "apikey",
        "private_key",
        "credential",
        "credentials",
    }
)
# Words that mark a key of free-form data as secret (status sections, which no model declares).
SECRET_WORDS = ("secret", "token", "password", "api_key", "apikey", "credential", "private_key")
# HTTP headers that carry credentials (case-insensitive): these names, or names containing these words.
SECRET_HEADERS = ("authorization", "proxy-authorization", "cookie", "x-api-key")
SECRET_HEADER_WORDS = ("auth", "token", "secret", "key", "password", "cookie", "credential")
# Every value of an MCP server's environment, and credential headers, are masked too.
_SERVER_ENV = r"mcp\.servers\..+\.env(\..+)?"  # compiled on first use (`re` caches it)
_SERVER_HEADER = r"mcp\.servers\..+\.headers(?:\.([^.]+))?"


class _SecretMarker:
    """Field metadata that declares a setting secret: `Annotated[str, SECRET]`."""

    def __repr__(self) -> str:
        return "SECRET"


SECRET: Final = _SecretMarker()


def is_secret_header(name: str) -> bool:
    """True for HTTP headers that carry credentials (Authorization, Cookie, X-Api-Key, *token*, ...)."""
    lowered = name.lower()
    return lowered in SECRET_HEADERS or any(word in lowered for word in SECRET_HEADER_WORDS)


def is_secret(key: str, model: type[BaseModel] | None = None, prefix: str = "") -> bool:
    """Whether the dotted `key` holds a secret; `model` declares the keys below `prefix` (a section)."""
    if _secret_name(normalize_key(key.rpartition(".")[2])) or re.fullmatch(_SERVER_ENV, key):
        return True
    header = re.fullmatch(_SERVER_HEADER, key)
    if header is not None and (header.group(1) is None or is_secret_header(header.group(1))):
        return True
    if model is None or not key.startswith(prefix):
        return False
    for step in follow(model, key[len(prefix) :].split(".")):
        if SecretStr in step.annotations or any(m is SECRET for m in step.metadata):
            return True
    return False


def _secret_name(name: str) -> bool:
    words = name.split("_")
    return any("_".join(words[i:]) in SECRET_NAMES for i in range(len(words)))


def is_secret_name(name: str) -> bool:
    """Whether a name (a key, an environment variable: `GITHUB_TOKEN`, `db-password`) names a secret."""
    return _secret_name(normalize_key(name))


def holds_secret(key: str, model: type[BaseModel] | None = None, prefix: str = "") -> bool:
    """Whether the dotted `key` is a secret or a section, list or mapping with a secret somewhere below it
    (`auth`, `auth.tokens.0`): a value written there in place of the section may be the secret itself."""
    if is_secret(key, model, prefix):
        return True
    if model is None or not key.startswith(prefix):
        return False
    parts = key[len(prefix) :].split(".")
    steps: list[Step] = follow(model, parts)
    if len(steps) < len(parts):
        return False
    return any(_declares_secret(annotation, set()) for annotation in steps[-1].annotations)


def _declares_secret(annotation: Any, seen: set[Any]) -> bool:
    """Whether a value of `annotation` holds a secret: a `SecretStr`, or a model with a secret field."""
    if annotation is SecretStr:
        return True
    if annotation in seen:
        return False
    seen.add(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return any(
            _secret_name(name)
            or any(m is SECRET for m in field.metadata)
            or _declares_secret(field.annotation, seen)
            for name, field in declared_fields(annotation).items()
        )
    return any(arg is SECRET or _declares_secret(arg, seen) for arg in typing.get_args(annotation))


def masked(key: str, value: Any, model: type[BaseModel] | None = None, prefix: str = "") -> Any:
    """`value` (of the dotted `key`) with every secret in it masked: mappings and lists item by item."""
    if isinstance(value, Mapping):
        return {k: masked(f"{key}.{k}", v, model, prefix) for k, v in value.items()}
    if isinstance(value, list):
        return [masked(f"{key}.{i}", v, model, prefix) for i, v in enumerate(value)]
    if value is not None and (isinstance(value, SecretStr) or is_secret(key, model, prefix)):
        return MASK
    if isinstance(value, str):
        return mask_url_credentials(value)
    return value


def printable(key: str, value: Any, model: type[BaseModel] | None = None, prefix: str = "") -> str:
    """`value` as `mesh config` prints it: a secret `******`, `null`, `true`, text as is."""
    if value is not None and value != {} and (isinstance(value, SecretStr) or is_secret(key, model, prefix)):
        return MASK
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return mask_url_credentials(value)
    if isinstance(value, (int, float)):
        return str(value)
    return repr(masked(key, value, model, prefix))
