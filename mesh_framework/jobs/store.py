"""`JobStore`: this agent's jobs, running and finished, with retention (bounded count and age)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterator

from .model import Job

__all__ = ["JobStore", "UnknownJobError"]


class UnknownJobError(LookupError):
    """No job has this id here (never started, or dropped by retention)."""

    def __init__(self, job_id: str) -> None:
        super().__init__(
            f"Unknown job id '{job_id}': no job with this id runs here or finished recently "
            "(finished jobs are kept for jobs.retention); check the id the call answered with"
        )


class JobStore:
    """Jobs by id, in start order. Finished jobs beyond `max_count` or older than `max_age` are dropped."""

    def __init__(self, *, max_count: int = 100, max_age: float = 3600.0) -> None:
        self.max_count = max_count
        self.max_age = max_age
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._finished: OrderedDict[str, None] = OrderedDict()  # finished ids, oldest first

    def add(self, job: Job) -> Job:
        self._jobs[job.id] = job
        return job

    def get(self, job_id: str) -> Job:
        self.prune()
        try:
            return self._jobs[job_id]
        except KeyError:
            raise UnknownJobError(job_id) from None

    def find(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id)

    def finished(self, job: Job) -> None:
        """Record that `job` reached a terminal status, then apply retention."""
        self._finished[job.id] = None
        self.prune()

    def prune(self) -> None:
        cutoff = time.time() - self.max_age
        while self._finished:
            oldest = next(iter(self._finished))
            job = self._jobs.get(oldest)
            too_many = len(self._finished) > self.max_count
            if job is not None and not too_many and (job.finished_at or 0) >= cutoff:
                break
            del self._finished[oldest]
            self._jobs.pop(oldest, None)

    def latest(self) -> Job | None:
        """The most recently submitted job, running or finished."""
        return next(reversed(self._jobs.values()), None)

    def __iter__(self) -> Iterator[Job]:
        return iter(list(self._jobs.values()))

    def __len__(self) -> int:
        return len(self._jobs)
