"""The registry's job API (MCP Mesh's, as its registry 3.7.1 answers), served from memory and, when the
registry keeps a database, written through to it (`job_persistence.py`): jobs survive a restart.

- POST `/jobs` `{capability, submitted_payload, submitted_by, max_retries, max_duration, total_deadline}`:
  201 `{id, status: "working", owner_instance_id: null}`; 400 `{error}` without capability or submitted_by.
- GET `/jobs/{id}`: the job row; 404 `{error: "job not found: ID"}`. GET `/jobs`: `{jobs, next_cursor}`
  (query `status` CSV, `capability`, `owner_instance_id`, `limit` <= 200).
- POST `/jobs/claim` `{capability, instance_id}`: `{claimed: [row subset]}` (0 or 1; lease 300 s).
- POST `/jobs/batch` `{instance_id, deltas: [...]}`: `{accepted, rejected: [{id, reason}]}`.
- POST `/jobs/{id}/cancel` `{reason}`: `{status: "cancelled", forwarded_to_instance_id}`, forwarded to the
  owner's `POST /jobs/{id}/cancel`; 409 when the job is already terminal.
- POST/GET `/jobs/{id}/events`: post `{type, payload}` -> `{job_id, seq, created_at}` (409 if terminal);
  read `?after=&wait=` -> `{events, next_after}` (a long poll up to `wait` seconds, at most 60).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .inputs import BodyError, query_int, read_json
from .store import RegistryStore
from .views import timestamp

if TYPE_CHECKING:  # SQLite: loaded for a registry given a database only
    from .job_persistence import SqliteJobs

__all__ = ["JobBoard", "job_routes", "pending_jobs_header"]

LEASE_SECONDS = 300
TERMINAL = frozenset({"completed", "failed", "cancelled"})
STATUSES = frozenset({"working", "input_required", *TERMINAL})
MAX_JOBS = 10_000  # terminal jobs beyond this are dropped, oldest first
_BOARDS: weakref.WeakKeyDictionary[RegistryStore, JobBoard] = weakref.WeakKeyDictionary()


def _now() -> int:
    return int(time.time())


class JobBoard:
    """Jobs by id (insertion order) and their events; `owner_endpoint(instance_id)` finds where to forward."""

    def __init__(
        self,
        owner_endpoint: Callable[[str], str | None] = lambda _i: None,
        database: SqliteJobs | None = None,
    ) -> None:
        self.jobs: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.events: dict[str, list[dict[str, Any]]] = {}
        self.owner_endpoint = owner_endpoint
        self.database = database
        self._changed = asyncio.Event()
        if database is not None:
            for job, events in database.load():
                self.jobs[job["id"]] = job
                self.events[job["id"]] = events

    @classmethod
    def for_store(cls, store: RegistryStore) -> JobBoard:
        """A board whose cancels are forwarded to the owners' endpoints as `store` knows them, and whose
        jobs live in the store's database when it has one."""

        def endpoint(agent_id: str) -> str | None:
            state = store.get(agent_id)
            return state.registration.endpoint if state is not None else None

        database = None
        if store.database is not None:
            from .job_persistence import SqliteJobs

            database = SqliteJobs(store.database.writer)
        board = cls(endpoint, database)
        _BOARDS[store] = board
        return board

    def saved(self, job: dict[str, Any]) -> dict[str, Any]:
        """Write a changed job through to the database (if any); returns it."""
        if self.database is not None:
            self.database.save(job)
        return job

    async def forward_cancel(self, endpoint: str, job_id: str, reason: str | None) -> bool:
        """Tell the owner's agent to stop the job (`POST {endpoint}/jobs/{id}/cancel`); False if it failed."""
        import httpx2

        try:
            async with httpx2.AsyncClient(timeout=5.0) as http:
                await http.post(f"{endpoint.rstrip('/')}/jobs/{job_id}/cancel", json={"reason": reason})
        except httpx2.HTTPError:
            return False
        return True

    def submit(self, body: dict[str, Any]) -> dict[str, Any]:
        job_id = str(uuid.uuid4())
        self.jobs[job_id] = {
            "id": job_id,
            "capability": body["capability"],
            "status": "working",
            "owner_instance_id": None,
            "claim_epoch": 0,
            "attempt_count": 0,
            "progress": None,
            "progress_message": None,
            "result": None,
            "error": None,
            "recv_cursor": None,
            "submitted_payload": body.get("submitted_payload") or {},
            "submitted_by": body.get("submitted_by"),
            "submitted_at": _now(),
            "max_retries": body.get("max_retries", 1),
            "max_duration": body.get("max_duration"),
            "total_deadline": body.get("total_deadline"),
            "lease_expires_at": None,
            "last_heartbeat_at": None,
        }
        self.events[job_id] = []
        self.saved(self.jobs[job_id])
        self._prune()
        return self.jobs[job_id]

    def claim(self, capability: str, instance_id: str) -> dict[str, Any] | None:
        now = _now()
        for job in self.jobs.values():
            lease = job["lease_expires_at"]
            free = job["owner_instance_id"] is None or (lease is not None and lease < now)
            if job["capability"] == capability and job["status"] == "working" and free:
                job.update(
                    owner_instance_id=instance_id,
                    claim_epoch=job["claim_epoch"] + 1,
                    attempt_count=job["attempt_count"] + 1,
                    lease_expires_at=now + LEASE_SECONDS,
                    last_heartbeat_at=now,
                )
                return self.saved(job)
        return None

    def pending(self, capabilities: set[str]) -> int:
        """Unowned working jobs for these capabilities (the `X-Mesh-Pending-Jobs` hint, capped at 100)."""
        count = sum(
            1
            for j in self.jobs.values()
            if j["status"] == "working" and j["owner_instance_id"] is None and j["capability"] in capabilities
        )
        return min(count, 100)

    def apply(self, instance_id: str, delta: dict[str, Any]) -> str | None:
        """Apply one batch delta; the rejection reason, or None when accepted."""
        job = self.jobs.get(str(delta.get("id")))
        if job is None:
            return "not_found"
        if job["status"] in TERMINAL:
            return "already_terminal"
        if job["owner_instance_id"] not in (None, instance_id):
            return "not_owner"
        epoch = delta.get("claim_epoch")
        if epoch is not None and epoch != job["claim_epoch"]:
            return "claim_superseded"
        status = delta.get("status")
        if status is not None and status not in STATUSES:
            return "invalid_status"
        for key in ("status", "progress", "progress_message", "result", "error", "recv_cursor"):
            if key in delta:
                job[key] = delta[key]
        job["owner_instance_id"] = instance_id
        job["last_heartbeat_at"] = _now()
        job["lease_expires_at"] = _now() + LEASE_SECONDS  # every report renews the lease, as MCP Mesh's does
        self.saved(job)
        self._changed.set()
        return None

    def cancel(self, job: dict[str, Any], reason: str | None) -> None:
        """End a job `cancelled` (the caller forwards the cancel to its owner)."""
        job.update(
            status="cancelled",
            error=f"cancelled: {reason}" if reason else "cancelled",
            last_heartbeat_at=_now(),
        )
        self.saved(job)
        self.add_event(job["id"], "cancelled", {"reason": reason} if reason else {})

    def renew(self, job: dict[str, Any]) -> None:
        """The owner read its events: its lease runs another `LEASE_SECONDS`."""
        job["lease_expires_at"] = _now() + LEASE_SECONDS
        self.saved(job)

    def add_event(self, job_id: str, kind: str, payload: Any, posted_by: str | None = None) -> dict[str, Any]:
        events = self.events.setdefault(job_id, [])
        event = {
            "job_id": job_id,
            "seq": len(events) + 1,
            "type": kind,
            "payload": payload,
            "trace_context": None,
            "posted_by": posted_by,
            "created_at": _now(),
        }
        events.append(event)
        if self.database is not None:
            self.database.save_event(event)
        self._changed.set()
        return event

    async def wait_change(self, seconds: float) -> None:
        self._changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), seconds)

    def _prune(self) -> None:
        if len(self.jobs) <= MAX_JOBS:
            return
        dropped = [i for i, j in self.jobs.items() if j["status"] in TERMINAL][: len(self.jobs) - MAX_JOBS]
        for job_id in dropped:
            del self.jobs[job_id]
            self.events.pop(job_id, None)
        if self.database is not None and dropped:
            self.database.delete(dropped)


def pending_jobs_header(store: RegistryStore, agent_id: str) -> dict[str, str]:
    """`X-Mesh-Pending-Jobs` for `HEAD /heartbeat/{agent_id}`, as MCP Mesh's registry sends it: the unowned
    working jobs of every capability that agents of the same name serve (capped at 100); none when 0."""
    board, state = _BOARDS.get(store), store.get(agent_id)
    if board is None or state is None or not board.jobs:
        return {}
    name = state.registration.name
    capabilities = {
        t.capability for s in store.agents() if s.registration.name == name for t in s.registration.tools
    }
    pending = board.pending(capabilities)
    return {"X-Mesh-Pending-Jobs": str(pending)} if pending else {}


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message, "timestamp": timestamp()}, status_code=status)


async def _json(request: Request) -> dict[str, Any] | None:
    try:
        body = await read_json(request)  # strict JSON (inputs.py): what is kept can be listed again
    except BodyError:
        return None
    return body if isinstance(body, dict) else None


class _JobApi:
    """The handlers of the job API over one self.board."""

    def __init__(self, board: JobBoard) -> None:
        self.board = board

    async def submit(self, request: Request) -> Response:
        body = await _json(request)
        if body is None:
            return _error(400, "request body must be a JSON object")
        if not isinstance(body.get("capability"), str) or not body["capability"]:
            return _error(400, "capability is required")
        if not isinstance(body.get("submitted_by"), str) or not body["submitted_by"]:
            return _error(400, "submitted_by is required")
        job = self.board.submit(body)
        return JSONResponse(
            {"id": job["id"], "status": "working", "owner_instance_id": None}, status_code=201
        )

    async def listing(self, request: Request) -> Response:
        query = request.query_params
        statuses = set(query["status"].split(",")) if query.get("status") else None
        try:
            limit = min(query_int(request, "limit", 50, high=10**9), 200)
        except BodyError as exc:
            return _error(400, str(exc))
        rows = [
            j
            for j in reversed(self.board.jobs.values())
            if (statuses is None or j["status"] in statuses)
            and query.get("capability") in (None, j["capability"])
            and query.get("owner_instance_id") in (None, j["owner_instance_id"])
        ]
        return JSONResponse({"jobs": rows[:limit], "next_cursor": None})

    async def get(self, request: Request) -> Response:
        job_id = request.path_params["job_id"]
        job = self.board.jobs.get(job_id)
        if job is None:
            return _error(404, f"job not found: {job_id}")
        return JSONResponse(job)

    async def claim(self, request: Request) -> Response:
        body = await _json(request)
        if body is None or not body.get("capability") or not body.get("instance_id"):
            return _error(400, "claim needs {capability, instance_id}")
        job = self.board.claim(str(body["capability"]), str(body["instance_id"]))
        keys = ("id", "submitted_payload", "attempt_count", "claim_epoch", "lease_expires_at", "max_duration")
        claimed = [] if job is None else [{**{k: job[k] for k in keys}, "recv_cursor": job["recv_cursor"]}]
        return JSONResponse({"claimed": claimed})

    async def batch(self, request: Request) -> Response:
        body = await _json(request)
        if body is None or not isinstance(body.get("deltas"), list):
            return _error(400, "batch needs {instance_id, deltas: [...]}")
        instance = str(body.get("instance_id") or "")
        accepted, rejected = 0, []
        for delta in body["deltas"]:
            reason = self.board.apply(instance, delta) if isinstance(delta, dict) else "invalid_status"
            if reason is None:
                accepted += 1
            else:
                rejected.append(
                    {"id": delta.get("id") if isinstance(delta, dict) else None, "reason": reason}
                )
        return JSONResponse({"accepted": accepted, "rejected": rejected})

    async def cancel(self, request: Request) -> Response:
        job_id = request.path_params["job_id"]
        job = self.board.jobs.get(job_id)
        if job is None:
            return _error(404, f"job not found: {job_id}")
        if job["status"] in TERMINAL:
            return _error(409, "job is already in a terminal state")
        body = await _json(request) or {}
        reason = body.get("reason")
        self.board.cancel(job, reason)
        owner = job["owner_instance_id"]
        endpoint = self.board.owner_endpoint(owner) if owner else None
        sent = endpoint is not None and await self.board.forward_cancel(endpoint, job_id, reason)
        forwarded = owner if sent else None
        return JSONResponse({"status": "cancelled", "forwarded_to_instance_id": forwarded})

    async def events(self, request: Request) -> Response:
        job_id = request.path_params["job_id"]
        if job_id not in self.board.jobs:
            return _error(404, f"job not found: {job_id}")
        if request.method == "POST":
            if self.board.jobs[job_id]["status"] in TERMINAL:
                return _error(409, "job is already in a terminal state")
            body = await _json(request)
            if body is None or not isinstance(body.get("type"), str):
                return _error(400, "an event needs {type, payload}")
            event = self.board.add_event(job_id, body["type"], body.get("payload"))
            return JSONResponse({k: event[k] for k in ("job_id", "seq", "created_at")})
        query = request.query_params
        job = self.board.jobs[job_id]
        if query.get("instance_id") and query.get("claim_epoch"):  # the owner reading: renews its lease
            if (
                query["claim_epoch"] != str(job["claim_epoch"])
                or query["instance_id"] != job["owner_instance_id"]
            ):
                return _error(409, "claim_superseded")
            self.board.renew(job)
        try:
            after = query_int(request, "after", 0, high=2**62)
            limit = min(query_int(request, "limit", 500, high=10**9), 500)
            wait = min(float(query.get("wait", "0") or 0), 60.0)
        except ValueError as exc:  # BodyError names the parameter; float() does not
            return _error(400, str(exc) if isinstance(exc, BodyError) else "wait must be a number of seconds")
        if not wait >= 0:  # NaN included
            return _error(400, "wait must be a number of seconds from 0")
        types = set(query["types"].split(",")) if query.get("types") else None

        def found() -> list[dict[str, Any]]:
            rows = [e for e in self.board.events.get(job_id, []) if e["seq"] > after]
            return [e for e in rows if types is None or e["type"] in types][:limit]

        deadline = time.monotonic() + wait
        rows = found()
        while not rows and time.monotonic() < deadline:
            await self.board.wait_change(deadline - time.monotonic())
            rows = found()
        return JSONResponse({"events": rows, "next_after": rows[-1]["seq"] if rows else after})


def job_routes(board: JobBoard) -> list[Route]:
    """The routes of the job API over `board`."""
    api = _JobApi(board)
    return [
        Route("/jobs", api.submit, methods=["POST"]),
        Route("/jobs", api.listing, methods=["GET"]),
        Route("/jobs/claim", api.claim, methods=["POST"]),
        Route("/jobs/batch", api.batch, methods=["POST"]),
        Route("/jobs/{job_id}", api.get, methods=["GET"]),
        Route("/jobs/{job_id}/cancel", api.cancel, methods=["POST"]),
        Route("/jobs/{job_id}/events", api.events, methods=["GET", "POST"]),
    ]
