"""Bean definitions that cannot work, each reported before start-up with its file and line."""

from __future__ import annotations

from mesh_framework import bean, component, configuration, mesh_agent


class Conn:
    pass


class Left:
    pass


class Right:
    pass


@configuration
class Broken:
    @bean
    def untyped(self):  # type: ignore[no-untyped-def]
        return object()

    @bean(scope="call")
    def conn(self) -> Conn:
        return Conn()

    @bean
    def left(self, right: Right) -> Left:
        return Left()

    @bean
    def right(self, left: Left) -> Right:
        return Right()

    @bean(scope="prototype")
    async def later(self) -> bytes:
        return b""


@component
class Holder:
    def __init__(self, conn: Conn) -> None:
        self.conn = conn


@mesh_agent(name="beans-bad")
class BeansBad:
    pass
