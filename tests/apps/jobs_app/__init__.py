"""An agent with background and task tools, for the job tests (tests/test_jobs*.py)."""

from mesh_framework import mesh_agent


@mesh_agent(name="jobs-app")
class JobsApp:
    pass
