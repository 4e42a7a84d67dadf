"""Tool wrappers: signature analysis, schemas, the call path and the registry of wrappers."""

from .context import ToolContext
from .wrapper import MeshToolWrapper
from .wrapper_registry import MeshToolWrapperRegistry

__all__ = ["MeshToolWrapper", "MeshToolWrapperRegistry", "ToolContext"]
