"""`GET /status`: the status sections as JSON (`?section=NAME` for one, `?live=true` to refresh first)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from .board import StatusBoard

__all__ = ["status_route"]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def status_route(board: StatusBoard, path: str = "/status") -> Route:
    async def status(request: Request) -> JSONResponse:
        live_text = request.query_params.get("live", "").lower()
        if live_text not in _TRUE | _FALSE:
            return JSONResponse(
                {"error": f"query parameter live={live_text!r} is not a boolean; use live=true or false"},
                status_code=400,
            )
        name = request.query_params.get("section")
        if name is not None and name not in board.sections:
            known = ", ".join(board.sections) or "none"
            return JSONResponse({"error": f"no status section '{name}' (sections: {known})"}, status_code=404)
        return JSONResponse(await board.snapshot(name, live=live_text in _TRUE))

    return Route(path, status, methods=["GET"])
