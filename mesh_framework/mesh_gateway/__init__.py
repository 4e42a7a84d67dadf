"""`mesh gateway`: the whole mesh at one MCP endpoint (`MeshGateway`), every healthy tool kept live from
the registry, or found on demand (`discovery="search"`). A feature package: the core never imports it;
the `mesh` command (`cli/gateway_command.py`) assembles it."""

from __future__ import annotations

from .gateway import Discovery, MeshGateway
from .gateway_server import serve_gateway
from .offers import GatewayFilter, Offer, ServedTool, offers_of, plan_tools
from .search import Bm25Index

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
