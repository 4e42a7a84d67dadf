"""`mesh call --wait` interrupted: it cancels the job and says whether the cancel went through.

`wait_for_job` takes the function that calls the agent's tools; here that function answers as an agent
would, and the cancel fails the ways a real one does (the agent gone, the job already over). The end to end
paths, a real agent and Ctrl-C included, are in tests/cli/test_cli_json.py and
tests/jobs/test_jobs_shutdown.py.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mesh_framework.cli.common import CliError, Unreachable
from mesh_framework.cli.job_wait import EXIT_INTERRUPTED, wait_for_job

pytestmark = pytest.mark.timeout(30)

GONE = Unreachable("http://127.0.0.1:9/mcp is unreachable: All connection attempts failed")
FINISHED = CliError("Job j1 already finished (completed); there is nothing to cancel")


async def interrupt(cancel_outcome: Exception | None) -> CliError:
    """Wait on job j1, press Ctrl-C once it was polled, and return the error the command exits with."""
    polled = asyncio.Event()
    cancels: list[dict[str, Any]] = []

    async def agent(tool: str, arguments: dict[str, Any]) -> Any:
        if tool == "__mesh_job_status":
            polled.set()
            return {"status": "working", "progress": 0.5}
        assert tool == "__mesh_job_cancel"
        cancels.append(arguments)
        if cancel_outcome is not None:
            raise cancel_outcome
        return {"ok": True, "job_id": "j1"}

    waiting = asyncio.create_task(wait_for_job(agent, "j1", "backup"))
    await polled.wait()
    waiting.cancel()  # what asyncio.run does to the command's task on Ctrl-C
    with pytest.raises(CliError) as caught:
        await waiting
    assert cancels == [{"job_id": "j1", "reason": "mesh call was interrupted"}]
    assert caught.value.exit_code == EXIT_INTERRUPTED
    return caught.value


async def test_an_interrupt_whose_cancel_went_through_says_the_job_was_cancelled() -> None:
    assert str(await interrupt(None)) == "interrupted; job j1 of 'backup' was cancelled"


async def test_an_interrupt_whose_cancel_failed_says_the_job_may_still_run() -> None:
    assert str(await interrupt(GONE)) == (
        "interrupted; job j1 of 'backup' was not cancelled: "
        "http://127.0.0.1:9/mcp is unreachable: All connection attempts failed; it may still be running"
    )


async def test_an_interrupt_after_the_job_ended_says_why_the_cancel_was_refused() -> None:
    assert str(await interrupt(FINISHED)) == (
        "interrupted; job j1 of 'backup' was not cancelled: "
        "Job j1 already finished (completed); there is nothing to cancel"
    )
