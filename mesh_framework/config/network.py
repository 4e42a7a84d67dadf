"""Derived settings: the agent id, the advertised host and the bind address."""

from __future__ import annotations

import ipaddress
import re
import secrets
import socket
from urllib.parse import urlsplit

__all__ = ["detect_outward_host", "generate_agent_id", "is_loopback"]


def generate_agent_id(name: str) -> str:
    """`{name}-{8 lowercase hex}`, the name reduced to what MCP Mesh accepts (lowercase, digits, hyphens)."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "agent"
    return f"{slug}-{secrets.token_hex(4)}"


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def registry_host(url: str | None) -> str | None:
    return urlsplit(url).hostname if url else None


def detect_outward_host(toward: str | None) -> str:
    """The local address this machine uses to reach `toward` (the registry host).

    A UDP socket's connect() only selects a route; no packet is sent. Without a target, or when the route
    cannot be found, the host name's address is used.
    """
    if toward:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                probe.connect((toward, 9))
                address: str = probe.getsockname()[0]
                if address and address != "0.0.0.0":
                    return address
        except OSError:
            pass
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"
