"""`RegistryJobClient`: the registry's job API as an agent uses it (MCP Mesh's wire, registry 3.7.1)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import httpx2

from ..security.redaction import redact_url

__all__ = ["JobApiError", "RegistryJobClient"]


class JobApiError(Exception):
    """The registry refused a job request; `status` is its HTTP status (404 unknown, 409 terminal)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class RegistryJobClient:
    """Submit, read, claim, report and cancel jobs on one registry, as agent `instance_id`."""

    def __init__(
        self,
        http: httpx2.AsyncClient,
        url: str | Callable[[], str],
        instance_id: str,
        *,
        timeout: float = 10.0,
    ) -> None:
        self.http = http
        self._url = url  # or the registry currently used, when the agent fails over between replicas
        self.instance_id = instance_id
        self.timeout = timeout

    @property
    def url(self) -> str:
        return (self._url if isinstance(self._url, str) else self._url()).rstrip("/")

    async def _send(self, method: str, path: str, body: Any = None, **params: Any) -> Any:
        try:
            response = await self.http.request(
                method, self.url + path, json=body, params=params or None, timeout=self.timeout
            )
        except httpx2.HTTPError as exc:
            where = redact_url(self.url)
            raise JobApiError(0, f"registry {where} unreachable for {method} {path}: {exc}") from None
        if response.status_code == 204:
            return None
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if response.status_code >= 400:
            message = answer.get("error") if isinstance(answer, dict) else response.text
            raise JobApiError(response.status_code, f"registry answered {method} {path}: {message}")
        return answer

    async def submit(
        self,
        capability: str,
        payload: Mapping[str, Any],
        *,
        max_retries: int = 1,
        max_duration: int | None = None,
        total_deadline: int | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "capability": capability,
            "submitted_payload": dict(payload),
            "submitted_by": self.instance_id,
            "max_retries": max_retries,
        }
        if max_duration is not None:
            body["max_duration"] = max_duration
        if total_deadline is not None:
            body["total_deadline"] = total_deadline
        answer: dict[str, Any] = await self._send("POST", "/jobs", body)
        return answer

    async def get(self, job_id: str) -> dict[str, Any]:
        answer: dict[str, Any] = await self._send("GET", f"/jobs/{job_id}")
        return answer

    async def cancel(self, job_id: str, reason: str | None = None) -> dict[str, Any]:
        answer: dict[str, Any] = await self._send("POST", f"/jobs/{job_id}/cancel", {"reason": reason})
        return answer

    async def claim(self, capability: str) -> dict[str, Any] | None:
        answer = await self._send(
            "POST", "/jobs/claim", {"capability": capability, "instance_id": self.instance_id}
        )
        claimed = answer.get("claimed") if isinstance(answer, dict) else None
        return claimed[0] if claimed else None

    async def report(self, deltas: list[dict[str, Any]]) -> dict[str, Any]:
        answer: dict[str, Any] = await self._send(
            "POST", "/jobs/batch", {"instance_id": self.instance_id, "deltas": deltas}
        )
        return answer

    async def post_event(self, job_id: str, kind: str, payload: Any = None) -> dict[str, Any]:
        answer: dict[str, Any] = await self._send(
            "POST", f"/jobs/{job_id}/events", {"type": kind, "payload": payload or {}}
        )
        return answer

    async def events(self, job_id: str, *, after: int = 0, wait: float = 0) -> dict[str, Any]:
        answer: dict[str, Any] = await self._send("GET", f"/jobs/{job_id}/events", after=after, wait=wait)
        return answer
