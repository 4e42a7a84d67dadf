"""`ResourceCatalog`: the resources of an agent (functions, templates, static files), listed and read."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._frozen import record
from ..argument_completion import complete_argument
from ..failures import log_failure
from ..prompts.arguments import Argument, ArgumentError
from ..protocol.features import FeatureRequestError

if TYPE_CHECKING:  # an agent serving no static file nor template loads neither; contents, with a first read
    from .files import StaticFile
    from .template import UriTemplate

__all__ = ["FunctionResource", "ResourceCatalog", "ResourceError", "TemplateResource"]

logger = logging.getLogger("mesh_framework.resources")


class ResourceError(FeatureRequestError):
    """A `resources/read` (or completion) request that cannot be answered; `uri` is the one asked for."""


@record(slots=True)
class FunctionResource:
    """A resource served by a function: a fixed URI, or a URI template (`template` set)."""

    uri: str
    name: str
    description: str
    target: Callable[[], Callable[..., Any]]
    arguments: tuple[Argument, ...] = ()
    title: str | None = None
    mime_type: str | None = None
    origin: str = ""
    scopes: tuple[str, ...] = ()  # what a resources/read asks of the caller's token

    def descriptor(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"uri": self.uri, "name": self.name}
        return self._describe(wire)

    def _describe(self, wire: dict[str, Any]) -> dict[str, Any]:
        if self.title:
            wire["title"] = self.title
        if self.description:
            wire["description"] = self.description
        if self.mime_type:
            wire["mimeType"] = self.mime_type
        return wire

    async def read(self, uri: str, values: Mapping[str, str]) -> list[dict[str, Any]]:
        from .contents import to_contents  # loaded with the first resource read

        kwargs = {}
        for argument in self.arguments:
            if argument.name in values:
                try:
                    kwargs[argument.name] = argument.convert(values[argument.name])
                except ArgumentError as exc:
                    raise ResourceError(f"Resource '{uri}': {exc}", uri=uri) from None
        function = self.target()
        if inspect.iscoroutinefunction(function):
            value = await function(**kwargs)
        else:
            value = await asyncio.to_thread(function, **kwargs)
        return to_contents(uri, value, self.mime_type)


@record(slots=True)
class TemplateResource(FunctionResource):
    template: UriTemplate | None = None
    completers: dict[str, Callable[[], Callable[..., Any]]] | None = None

    def descriptor(self) -> dict[str, Any]:
        return self._describe({"uriTemplate": self.uri, "name": self.name})


class ResourceCatalog:
    """The resources of one agent. Built at start-up; never changes while the agent runs."""

    def __init__(
        self,
        resources: list[FunctionResource] | None = None,
        templates: list[TemplateResource] | None = None,
        files: list[StaticFile] | None = None,
    ) -> None:
        self._static: dict[str, FunctionResource | StaticFile] = {}
        items: list[FunctionResource | StaticFile] = [*(files or []), *(resources or [])]
        for item in items:
            self._static[item.uri] = item
        self._templates = {t.uri: t for t in templates or []}
        self._listed = [item.descriptor() for item in self._static.values()]
        self._listed_templates = [t.descriptor() for t in self._templates.values()]

    def __len__(self) -> int:
        return len(self._static) + len(self._templates)

    @property
    def template_count(self) -> int:
        return len(self._templates)

    def descriptors(self) -> list[dict[str, Any]]:
        return self._listed

    def template_descriptors(self) -> list[dict[str, Any]]:
        return self._listed_templates

    def _find(self, uri: str) -> tuple[FunctionResource | StaticFile | None, Mapping[str, str]]:
        """What serves `uri`: a resource or file of that URI, else the first template matching it."""
        item = self._static.get(uri)
        if item is not None:
            return item, {}
        for template in self._templates.values():
            assert template.template is not None
            matched = template.template.match(uri)
            if matched is not None:
                return template, matched
        return None, {}

    def scopes_of(self, uri: Any) -> tuple[str, ...]:
        """The scopes a `resources/read` of `uri` needs (none for a URI it does not serve, or a file)."""
        item = self._find(uri)[0] if isinstance(uri, str) else None
        return item.scopes if isinstance(item, FunctionResource) else ()

    def declared_scopes(self) -> dict[str, tuple[str, ...]]:
        """Each scoped resource's (or template's) scopes, by `resource URI`."""
        items = [*self._static.values(), *self._templates.values()]
        return {f"resource {i.uri}": i.scopes for i in items if isinstance(i, FunctionResource) and i.scopes}

    async def read(self, uri: Any) -> dict[str, Any]:
        """The `ReadResourceResult` of `uri`; ResourceError when nothing serves it or its function fails."""
        if not isinstance(uri, str) or not uri:
            raise ResourceError("resources/read needs params.uri, the URI of the resource to read")
        item, values = self._find(uri)
        if item is None:
            raise ResourceError(
                f"Resource not found: '{uri}' is no resource of this agent and matches none of its URI "
                "templates; resources/list and resources/templates/list show what it serves",
                uri=uri,
            )
        try:
            if isinstance(item, FunctionResource):
                contents = await item.read(uri, values)
            else:  # a static file: a large one must not stall the loop
                contents = await asyncio.to_thread(item.read)
        except ResourceError:
            raise
        except Exception as exc:
            log_failure(logger, f"resource '{uri}'", exc)
            raise ResourceError(
                f"Resource '{uri}' failed: {type(exc).__name__}: {exc}", uri=uri, internal=True
            ) from None
        return {"contents": contents}

    async def complete(
        self, template_uri: Any, argument: str, value: str, context: Mapping[str, str]
    ) -> dict[str, Any]:
        template = self._templates.get(template_uri) if isinstance(template_uri, str) else None
        if template is None:
            known = ", ".join(self._templates) or "none"
            raise ResourceError(f"Unknown resource template '{template_uri}'. Templates: {known}")
        return await complete_argument(
            f"resource template '{template.uri}'",
            "variable",
            arguments=template.arguments,
            completers=template.completers,
            argument=argument,
            value=value,
            context=context,
            error=ResourceError,
        )
