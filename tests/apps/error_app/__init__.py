"""An agent whose tools fail in the ways a remote caller may be told about (or not, with
`tools.mask_error_details`): a plain exception, one whose message carries a traceback, a dependency's
error, a task tool called plainly and a background job."""

from mesh_framework import ToolExecutionError, mesh_agent, mesh_tool


@mesh_agent(name="errors", version="1.0.0")
class ErrorAgent:
    pass


@mesh_tool()
def divide(a: int, b: int) -> float:
    return a / b


@mesh_tool()
def noisy() -> str:
    raise RuntimeError(
        'the helper failed\nTraceback (most recent call last):\n  File "/srv/app/helper.py", line 3\n'
        "KeyError: 'db_password'"
    )


@mesh_tool()
async def remote() -> str:
    raise ToolExecutionError("http://10.1.2.3:8080/mcp did not answer tools/call within 30s")


@mesh_tool(task=True)
async def task_tool() -> str:
    raise ValueError("no row 42 in /var/lib/app/data.db")


@mesh_tool(background=True)
async def background_tool() -> str:
    raise ValueError("no row 7 in /var/lib/app/data.db")
