"""The mesh runtime: proxies for dependencies on other agents and the factory that hands them out."""

from .proxy_factory import McpMeshToolProxyFactory

__all__ = ["McpMeshToolProxyFactory"]
