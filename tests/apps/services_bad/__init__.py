"""Service interfaces that cannot be implemented: every problem is reported at start-up, together."""

from __future__ import annotations

from typing import Protocol

from mesh_framework import mesh_agent, mesh_service, mesh_tool, selector


@mesh_agent(name="services-bad")
class Bad:
    pass


@mesh_service
class Unmarked(Protocol):
    @selector("media.caption")
    async def caption(self, text: str) -> str: ...

    async def helper(self, text: str) -> str: ...


@mesh_service
class Blocking:
    @selector("media.caption")
    def caption(self, text: str) -> str:
        raise NotImplementedError


@mesh_service
class BadName(Protocol):
    @selector("media..caption")
    async def caption(self, text: str) -> str: ...


@mesh_service(min_available=3)
class TooFew(Protocol):
    @selector("media.caption")
    async def caption(self, text: str) -> str: ...


@mesh_tool()
async def uses_unmarked(service: Unmarked) -> str:
    return await service.caption(text="x")


@mesh_tool()
async def uses_blocking(service: Blocking) -> str:
    return service.caption(text="x")


@mesh_tool()
async def uses_bad_name(service: BadName) -> str:
    return await service.caption(text="x")


@mesh_tool()
async def uses_too_few(service: TooFew) -> str:
    return await service.caption(text="x")
