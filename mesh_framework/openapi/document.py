"""An OpenAPI document read for `mcp.openapi`: from a file (JSON or YAML) or an http(s) URL, checked by
`openapi-pydantic` (3.0 and 3.1), with its local `$ref`s followed through `referencing`.

Only references inside the document (`#/...`) are followed; one to another file or URL is a problem of
the operation that uses it (bundle the document first)."""

from __future__ import annotations

import json
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urljoin, urlsplit

import httpx2
import yaml
from openapi_pydantic.v3 import parse_obj
from openapi_pydantic.v3.parser import OpenAPIv3
from pydantic import BaseModel, ValidationError
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable

from ..errors import MeshError

__all__ = ["OpenApiDocument", "SpecError", "read_document"]

# The newest version of each line openapi-pydantic reads: a later patch release reads as it.
_LINES = {"3.0": "3.0.4", "3.1": "3.1.2"}
_ROOT = "urn:mesh-framework:openapi-document"

Model = TypeVar("Model", bound=BaseModel)


class SpecError(MeshError):
    """An OpenAPI document that cannot be read or is not a valid 3.0/3.1 document."""


@dataclass(frozen=True)
class OpenApiDocument:
    """A document as read (`raw`), as `openapi-pydantic` models it (`model`), and where it came from."""

    raw: dict[str, Any]
    model: OpenAPIv3
    source: str
    version: str  # "3.0" or "3.1"

    @property
    def is_url(self) -> bool:
        return urlsplit(self.source).scheme in ("http", "https")

    def lookup(self, ref: str) -> Any:
        """What the local reference `ref` (`#/components/schemas/Pet`) points at, references followed
        until something else is found; SpecError when it points nowhere or outside the document."""
        seen: list[str] = []
        contents: Any = {"$ref": ref}
        while isinstance(contents, dict) and isinstance(contents.get("$ref"), str):
            ref = contents["$ref"]
            if not ref.startswith("#"):
                raise SpecError(f"$ref {ref!r} points outside the document; only '#/...' references are read")
            if ref in seen:
                raise SpecError(f"$ref {ref!r} refers to itself ({' -> '.join([*seen, ref])})")
            seen.append(ref)
            try:
                contents = _resolver(self.raw).lookup(_ROOT + ref).contents
            except Unresolvable:
                raise SpecError(f"$ref {ref!r} points at nothing in the document") from None
        return contents

    def resolve(self, node: Any, model: type[Model]) -> Model:
        """`node` as `model`: itself, or what its reference points at (a Parameter, a RequestBody...)."""
        ref = getattr(node, "ref", None)
        if isinstance(ref, str) and not isinstance(node, model):
            try:
                return model.model_validate(self.lookup(ref))
            except ValidationError as exc:
                raise SpecError(f"$ref {ref!r}: {_first_problem(exc)}") from None
        return node  # type: ignore[no-any-return]

    def base_url(self) -> str | None:
        """The document's first server URL (its variables at their defaults), against the URL the document
        was read from; None when it is relative and the document is a file."""
        servers = self.model.servers or []
        if not servers:
            return None
        server = servers[0]
        url = server.url
        for name, variable in (server.variables or {}).items():
            url = url.replace("{" + name + "}", str(variable.default))
        if urlsplit(url).scheme in ("http", "https"):
            return url
        return urljoin(self.source, url) if self.is_url else None


def _resolver(raw: dict[str, Any]) -> Any:
    resource: Resource[Any] = Resource.opaque(raw)
    return Registry().with_resource(_ROOT, resource).resolver(base_uri=_ROOT)


def read_document(
    spec: str, base: Path, *, timeout: float = 10.0, verify: ssl.SSLContext | bool = True
) -> OpenApiDocument:
    """Read and check the document `spec` (a file, relative to `base`, or an http(s) URL)."""
    if urlsplit(spec).scheme in ("http", "https"):
        source = spec
        text = _fetch(spec, timeout, verify)
    else:
        path = Path(spec).expanduser()
        path = path if path.is_absolute() else base / path
        source = str(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise SpecError(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise SpecError(f"{path} is not UTF-8 text") from None
    raw = _parse_text(text, source)
    return parse_document(raw, source)


def parse_document(raw: Any, source: str) -> OpenApiDocument:
    """A document's data checked as OpenAPI 3.0 or 3.1."""
    if not isinstance(raw, dict):
        raise SpecError(f"{source} is not an OpenAPI document (a JSON or YAML mapping)")
    version = raw.get("openapi")
    if version is None:
        hint = " (a Swagger 2.0 document: convert it to OpenAPI 3 first)" if "swagger" in raw else ""
        raise SpecError(f"{source} has no 'openapi' version field{hint}")
    line = str(version).rpartition(".")[0] if str(version).count(".") == 2 else str(version)
    if line not in _LINES:
        raise SpecError(f"{source} is OpenAPI {version}; only 3.0 and 3.1 documents are read")
    try:
        model = parse_obj({**raw, "openapi": _LINES[line]})
    except ValidationError as exc:
        raise SpecError(f"{source} is not a valid OpenAPI {line} document: {_first_problem(exc)}") from None
    return OpenApiDocument(raw=raw, model=model, source=source, version=line)


def _fetch(url: str, timeout: float, verify: ssl.SSLContext | bool) -> str:
    try:
        with httpx2.Client(timeout=timeout, verify=verify, follow_redirects=True, trust_env=False) as client:
            response = client.get(url, headers={"accept": "application/json, application/yaml;q=0.9"})
    except httpx2.TimeoutException:
        raise SpecError(f"{url} did not answer within {timeout:g}s") from None
    except httpx2.HTTPError as exc:
        raise SpecError(f"cannot fetch {url}: {exc or type(exc).__name__}; is the service running?") from None
    if response.status_code != 200:
        raise SpecError(f"{url} answered HTTP {response.status_code}, not the document")
    return response.text


def _parse_text(text: str, source: str) -> Any:
    if text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise SpecError(f"{source} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise SpecError(f"{source} is not valid YAML{where}: {getattr(exc, 'problem', exc)}") from None


def _first_problem(exc: ValidationError) -> str:
    """The first few problems pydantic found, each with where it is in the document."""
    problems = []
    for error in exc.errors(include_url=False)[:3]:
        loc = [str(part) for part in error["loc"]]
        if loc and loc[0][:1].isdigit():  # the version tag of the discriminated union
            loc = loc[1:]
        problems.append(f"{'.'.join(loc) or '(document)'}: {error['msg']}")
    more = exc.error_count() - len(problems)
    return "; ".join(problems) + (f" (and {more} more)" if more > 0 else "")
