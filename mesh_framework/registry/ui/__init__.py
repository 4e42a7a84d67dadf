"""The mesh page: `GET /ui` (one self-contained HTML page, no CDN) and `GET /ui/state` (its JSON).

The page draws the agents, the dependency graph (SVG) and the LLM providers and filters, and redraws
whenever the registry's `/ui/stream` (registry/push.py) says something changed. Its console (traffic,
tokens, traces, events, try a tool: `console.js`, inlined into the page) reads registry/console/'s routes.
The page is served with its CSRF token, a nonce on its inline script and style, and security headers
(protection.py).
"""

from __future__ import annotations

from importlib import resources

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ..store import RegistryStore
from .protection import favicon_route, page_response
from .state import mesh_state

__all__ = ["mesh_state", "page_html", "ui_routes"]


def page_html() -> str:
    """The page's HTML with its console script inlined (package data next to this module); its `{{csrf}}`
    and tags are filled per response by `protection.page_response`."""
    files = resources.files(__package__)
    script = files.joinpath("console.js").read_text(encoding="utf-8")
    page = files.joinpath("page.html").read_text(encoding="utf-8")
    return page.replace("<!-- console.js -->", "<script>\n" + script + "</script>", 1)


def ui_routes(store: RegistryStore) -> list[Route]:
    html = page_html()

    async def page(request: Request) -> Response:
        return page_response(html)

    async def state(request: Request) -> Response:
        return JSONResponse(mesh_state(store), headers={"Cache-Control": "no-store"})

    return [
        Route("/ui", page, methods=["GET"]),
        Route("/ui/state", state, methods=["GET"]),
        favicon_route(),
    ]
