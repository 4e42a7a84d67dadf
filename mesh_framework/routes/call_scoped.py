"""`CallScopedRouteHandler`: the handler of a route that takes a call-scoped bean. Each request opens a call
scope, makes the beans it takes and closes them when the answer has been sent (a stream's last event too).
Chosen at start-up for these routes only."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from starlette.responses import JSONResponse

from ..di.call_scope import CallScopes
from ..failures import log_failure
from ..tools.call_scoped import ScopedBeans
from .handler import RouteHandler

__all__ = ["CallScopedRouteHandler"]

logger = logging.getLogger("mesh_framework.routes")


class CallScopedRouteHandler(RouteHandler):
    """A route handler whose requests each run in a call scope (`scoped`: parameter -> bean name)."""

    def __init__(self, *args: Any, scoped: Mapping[str, str], scopes: CallScopes, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.scoped = dict(scoped)
        self.scopes = scopes
        self.beans = ScopedBeans(self.beans, self.scoped)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async with self.scopes.open() as call:
            try:
                for name in self.scoped.values():
                    await call.get(name)
            except Exception as exc:
                log_failure(logger, f"route {self.plan.display}: making its call-scoped beans", exc)
                answer = {"error": "internal_error", "detail": self.wrapper.error_text(exc)}
                await JSONResponse(answer, 500)(scope, receive, send)
                return
            await super().__call__(scope, receive, send)
