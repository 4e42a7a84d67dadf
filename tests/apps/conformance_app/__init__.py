"""A fixture agent defining the tools the MCP conformance suites call, built with the framework."""

from mesh_framework import mesh_agent


@mesh_agent(name="conformance-fixture", version="1.0.0")
class ConformanceAgent:
    pass
