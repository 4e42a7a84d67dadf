"""`JsonLinesSpanExporter`: finished spans appended to a file, one JSON object a line (`tracing.exporter:
file`). For local runs and tests that read another process's spans; needs the `otel` extra."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

__all__ = ["JsonLinesSpanExporter", "span_record"]


def _hex(value: int | None, width: int) -> str | None:
    return None if value is None else f"{value:0{width}x}"


def span_record(span: ReadableSpan) -> dict[str, Any]:
    """One span as plain data: ids in hex, the parent's span id, attributes, status and the service."""
    context = span.context
    parent = span.parent
    return {
        "name": span.name,
        "kind": span.kind.name,
        "trace_id": _hex(context.trace_id if context else None, 32),
        "span_id": _hex(context.span_id if context else None, 16),
        "parent_span_id": _hex(parent.span_id if parent else None, 16),
        "parent_is_remote": bool(parent and parent.is_remote),
        "start_ns": span.start_time,
        "end_ns": span.end_time,
        "status": span.status.status_code.name,
        "status_description": span.status.description,
        "attributes": dict(span.attributes or {}),
        "events": [{"name": e.name, "attributes": dict(e.attributes or {})} for e in span.events],
        "service": span.resource.attributes.get("service.name"),
    }


class JsonLinesSpanExporter(SpanExporter):
    """Appends each exported span to `path` as one JSON line (the folder is created)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        lines = "".join(json.dumps(span_record(s), default=str) + "\n" for s in spans)
        with self._lock, self.path.open("a", encoding="utf-8") as file:
            file.write(lines)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None
