"""`CallScopedToolWrapper`: the wrapper of a tool that takes a call-scoped bean. Each call (or, for a
background or task tool, each job) opens a call scope, makes the beans it takes, and closes them when the
body ends. Chosen at start-up for these tools only, so the others' call path is unchanged."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from ..di.call_scope import CallScopes, scoped_value
from ..failures import log_failure
from .context import ToolContext
from .wrapper import MeshToolWrapper, error_result

__all__ = ["CallScopedToolWrapper", "ScopedBeans"]

logger = logging.getLogger("mesh_framework.tools")


class ScopedBeans(dict[str, Any]):
    """Beans by parameter (a tool's or a route's); a call-scoped parameter's value is the open call scope's
    instance."""

    def __init__(self, beans: Mapping[str, Any], scoped: Mapping[str, str]) -> None:
        super().__init__(beans)
        self.scoped = scoped

    def __missing__(self, parameter: str) -> Any:
        return scoped_value(self.scoped[parameter])


class CallScopedToolWrapper(MeshToolWrapper):
    """A tool wrapper whose calls each run in a call scope (`scoped`: parameter -> bean name)."""

    __slots__ = ("_scoped", "_scopes")

    def __init__(self, *, scoped: Mapping[str, str], scopes: CallScopes, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._scoped = dict(scoped)
        self._scopes = scopes

    def bind_beans(self, beans: Mapping[str, Any]) -> None:
        # the call path reads `_beans[parameter]`: a scoped parameter is missing, so it reads this call's bean
        self._beans = ScopedBeans(beans, self._scoped)

    async def call(
        self,
        arguments: Mapping[str, Any] | None,
        context: ToolContext | None = None,
        *,
        deadline: float | None = None,
    ) -> dict[str, Any]:
        if self.job_hook is not None:  # a job: its scope opens when the job runs (invoke)
            return await super().call(arguments, context, deadline=deadline)
        async with self._scopes.open() as scope:
            try:
                for name in self._scoped.values():
                    await scope.get(name)
            except Exception as exc:
                log_failure(logger, f"tool '{self.name}': making its call-scoped beans", exc)
                return error_result(self.error_text(exc))
            return await super().call(arguments, context, deadline=deadline)

    async def invoke(self, kwargs: dict[str, Any]) -> Any:
        async with self._scopes.open() as scope:
            made = {param: await scope.get(name) for param, name in self._scoped.items()}
            return await super().invoke({**kwargs, **made})
