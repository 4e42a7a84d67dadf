"""`mesh gateway`: the whole mesh at one MCP endpoint (`MeshGateway`), every healthy tool kept live from
the registry, or found on demand (`discovery="search"`). A feature package: the core never imports it;
the `mesh` command (`cli/gateway.py`) assembles it."""

from __future__ import annotations

from .catalog import GatewayFilter, Offer, ServedTool, offers_of, plan_tools
from .gateway import Discovery, MeshGateway
from .search import Bm25Index
from .server import serve_gateway

__all__ = [
    "Bm25Index",
    "Discovery",
    "GatewayFilter",
    "MeshGateway",
    "Offer",
    "ServedTool",
    "offers_of",
    "plan_tools",
    "serve_gateway",
]
