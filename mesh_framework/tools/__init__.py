"""Tool wrappers: signature analysis, schemas, the call path and the registry of wrappers."""

from .context import ToolContext
from .registry import MeshToolWrapperRegistry
from .wrapper import MeshToolWrapper

__all__ = ["MeshToolWrapper", "MeshToolWrapperRegistry", "ToolContext"]
