"""The agent of benchmarks/jobs_bench.py: one body served inline and as a background tool."""

from mesh_framework import JobContext, mesh_agent, mesh_tool


@mesh_agent(name="jobs-bench")
class JobsBench:
    pass


async def body(n: int) -> dict[str, int]:
    return {"n": n, "double": n * 2}


@mesh_tool()
async def work_inline(n: int) -> dict[str, int]:
    """The anchor: the body, called inline."""
    return await body(n)


@mesh_tool(background=True)
async def work_job(n: int, job: JobContext) -> dict[str, int]:
    """The same body as a background job (one progress report)."""
    job.progress(1, 1)
    return await body(n)
