"""Record the real MCP Mesh registry's job API (3.7.1) into `jobs_captures/registry_jobs.json`.

    python -m tests.interop.jobs_capture

The same sequence of requests is replayed against our embedded registry by tests/jobs/test_jobs_registry.py,
which compares statuses and answer shapes (ids and times differ from run to run).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from tests.interop.mcp_mesh import _http_json, run_mesh_registry

__all__ = ["CAPTURE", "SCRIPT", "run_script"]

CAPTURE = Path(__file__).resolve().parent / "jobs_captures" / "registry_jobs.json"

ME, W1, W2 = "me-1", "w-1", "w-2"
# (name, method, path, body); "{a}"/"{b}" are the ids of the first and second job submitted.
SCRIPT: list[tuple[str, str, str, Any]] = [
    ("submit", "POST", "/jobs", {"capability": "slow", "submitted_payload": {"n": 1}, "submitted_by": ME,
                                 "max_retries": 1, "max_duration": 60}),
    ("submit_second", "POST", "/jobs",
     {"capability": "slow", "submitted_payload": {"n": 2}, "submitted_by": ME}),
    ("get_unclaimed", "GET", "/jobs/{b}", None),
    ("get_unknown", "GET", "/jobs/no-such-job", None),
    ("claim", "POST", "/jobs/claim", {"capability": "slow", "instance_id": W1}),
    ("progress", "POST", "/jobs/batch", {"instance_id": W1, "deltas": [
        {"id": "{a}", "claim_epoch": 1, "progress": 0.5, "progress_message": "half"}]}),
    ("get_working", "GET", "/jobs/{a}", None),
    ("post_event", "POST", "/jobs/{a}/events", {"type": "note", "payload": {"x": 1}}),
    ("read_events", "GET", "/jobs/{a}/events?after=0&wait=0", None),
    ("read_events_as_owner", "GET", "/jobs/{a}/events?after=0&wait=0&instance_id=w-1&claim_epoch=1", None),
    ("read_events_superseded", "GET", "/jobs/{a}/events?after=0&wait=0&instance_id=w-1&claim_epoch=7", None),
    ("foreign_update", "POST", "/jobs/batch",
     {"instance_id": W2, "deltas": [{"id": "{a}", "progress": 0.9}]}),
    ("complete", "POST", "/jobs/batch", {"instance_id": W1, "deltas": [
        {"id": "{a}", "claim_epoch": 1, "status": "completed", "result": {"v": 1}}]}),
    ("get_completed", "GET", "/jobs/{a}", None),
    ("update_terminal", "POST", "/jobs/batch", {"instance_id": W1, "deltas": [{"id": "{a}", "progress": 1}]}),
    ("update_unknown", "POST", "/jobs/batch", {"instance_id": W1, "deltas": [{"id": "nope", "progress": 1}]}),
    ("cancel_terminal", "POST", "/jobs/{a}/cancel", {"reason": "late"}),
    ("cancel", "POST", "/jobs/{b}/cancel", {"reason": "stop"}),
    ("get_cancelled", "GET", "/jobs/{b}", None),
    ("cancel_events", "GET", "/jobs/{b}/events?after=0&wait=0", None),
    ("event_on_terminal", "POST", "/jobs/{b}/events", {"type": "note", "payload": {}}),
    ("list", "GET", "/jobs?limit=5", None),
    ("claim_nothing", "POST", "/jobs/claim", {"capability": "slow", "instance_id": W1}),
    ("submit_without_capability", "POST", "/jobs", {"submitted_payload": {}}),
    ("submit_without_submitted_by", "POST", "/jobs", {"capability": "slow", "submitted_payload": {}}),
]  # fmt: skip


def run_script(send: Any) -> list[dict[str, Any]]:
    """Run SCRIPT through `send(method, path, body) -> (status, text)`; the exchanges, answers parsed."""
    ids: dict[str, str] = {}
    exchanges = []
    for name, method, template, body in SCRIPT:
        path, text = template, json.dumps(body) if body is not None else None
        for key, value in ids.items():
            path = path.replace("{" + key + "}", value)
            text = text.replace("{" + key + "}", value) if text else text
        status, answer = send(method, path, json.loads(text) if text else None)
        parsed = json.loads(answer) if answer.strip() else None
        if name == "submit":
            ids["a"] = parsed["id"]
        if name == "submit_second":
            ids["b"] = parsed["id"]
        exchanges.append({"name": name, "method": method, "status": status, "answer": parsed})
    return exchanges


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, run_mesh_registry(tmp) as registry:

        def send(method: str, path: str, body: Any) -> tuple[int, str]:
            status, _type, text = _http_json(method, registry.url + path, body)
            return status, text

        exchanges = run_script(send)
    CAPTURE.write_text(json.dumps(exchanges, indent=1) + "\n")
    print(f"wrote {len(exchanges)} exchanges to {CAPTURE.name}")


if __name__ == "__main__":
    main()
