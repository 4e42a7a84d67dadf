"""The fixtures the MCP conformance suite's tasks scenarios (SEP-2663) call
(tests/jobs/test_jobs_mcp_tasks.py)."""

from mesh_framework import mesh_agent


@mesh_agent(name="tasks-app")
class TasksApp:
    pass
