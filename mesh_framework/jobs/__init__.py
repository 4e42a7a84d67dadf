"""Long-running work: background tools, MCP Mesh jobs (`task=True`), the job store and the job tools."""

from .context import JobCancelled, JobContext, MeshJob
from .model import Job

__all__ = ["Job", "JobCancelled", "JobContext", "MeshJob"]
