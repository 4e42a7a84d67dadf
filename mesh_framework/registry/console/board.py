"""`ConsoleBoard`: what the agents push (`POST /console/push`), kept in bounded memory for the console.

Traffic: per tool served (agent, tool) and per dependency edge (consumer, capability, provider), the
counters of each `BUCKET_SECONDS` time bucket over the last `WINDOW_SECONDS` (calls, errors, seconds and a
latency histogram, so p99 is read from the sum), plus totals since the registry started. Tokens: input,
output and requests per agent, model and tool. Traces: the newest `max_traces` traces by trace id, each
at most `MAX_SPANS` spans, and at most `MAX_TOTAL_SPANS` spans in all; the oldest trace goes first. Every
bound counts what it dropped.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...console_feed.recorder import BUCKET_BOUNDS, percentile
from ...errors import MeshError

__all__ = [
    "MAX_TOTAL_SPANS",
    "BUCKET_SECONDS",
    "MAX_KEYS",
    "MAX_SPANS",
    "MAX_TRACES",
    "WINDOW_SECONDS",
    "ConsoleBoard",
    "PushError",
]

BUCKET_SECONDS = 10
WINDOW_SECONDS = 300
MAX_TRACES = 2000
MAX_SPANS = 256
MAX_TOTAL_SPANS = 50_000
MAX_KEYS = 20_000  # traffic series and token rows together
_HISTOGRAM = len(BUCKET_BOUNDS) + 1


class PushError(MeshError, ValueError):
    """A push that is not what agents send: `field` names where."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


@dataclass(slots=True)
class _Series:
    """One key's buckets (bucket start -> [calls, errors, seconds, histogram]) and totals."""

    buckets: dict[int, list[Any]] = field(default_factory=dict)
    total_calls: int = 0
    total_errors: int = 0

    def add(self, bucket: int, calls: int, errors: int, seconds: float, histogram: Mapping[str, int]) -> None:
        row = self.buckets.get(bucket)
        if row is None:
            row = self.buckets[bucket] = [0, 0, 0.0, [0] * _HISTOGRAM]
        row[0] += calls
        row[1] += errors
        row[2] += seconds
        counts = row[3]
        for index, count in histogram.items():
            slot = int(index)
            if 0 <= slot < _HISTOGRAM:
                counts[slot] += int(count)
        self.total_calls += calls
        self.total_errors += errors

    def expire(self, oldest: int) -> None:
        for bucket in [b for b in self.buckets if b < oldest]:
            del self.buckets[bucket]


@dataclass(slots=True)
class _Trace:
    seq: int
    spans: list[list[Any]] = field(default_factory=list)
    dropped: int = 0


MAX_COUNT = 2**53 - 1  # what a page's JavaScript still counts exactly
MAX_SECONDS = 1e12  # seconds (a latency sum, a start time): sums of them stay finite, so JSON can carry them


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise PushError(where, f"must be a non-negative integer up to {MAX_COUNT}, not {value!r}")
    return value


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_SECONDS:
        raise PushError(where, f"must be a non-negative number up to {MAX_SECONDS:g}, not {value!r}")
    return float(value)


def _text(value: Any, where: str, limit: int = 256) -> str:
    if not isinstance(value, str):
        raise PushError(where, f"must be a string, not {type(value).__name__}")
    return value[:limit]


def _hex_id(value: Any, where: str, width: int) -> str:
    """A trace or span id: an integer (what agents send) or its hex form, as `width` hex digits."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 16**width:
        return f"{value:0{width}x}"
    if isinstance(value, str) and len(value) == width and all(c in "0123456789abcdef" for c in value):
        return value
    raise PushError(where, f"must be a {width}-hex-digit id or its integer, not {value!r}")


def _histogram(value: Any, where: str) -> dict[str, int]:
    if not isinstance(value, dict):
        raise PushError(where, "must be an object of bucket index to count")
    # bucket indexes in ASCII digits (int() takes other scripts' digits and would refuse "²")
    return {
        k: _int(v, f"{where}.{k}") for k, v in value.items() if k.isascii() and k.isdigit() and len(k) < 4
    }


# What each column of a pushed row must be: tools (tool, calls, errors, seconds, histogram), edges
# (capability, endpoint, calls, errors, seconds, histogram), tokens (model, tool, input, output, requests).
_Column = Callable[[Any, str], Any]
_TOOL_COLUMNS: tuple[_Column, ...] = (_text, _int, _int, _number, _histogram)
_EDGE_COLUMNS: tuple[_Column, ...] = (_text, _text, _int, _int, _number, _histogram)
_TOKEN_COLUMNS: tuple[_Column, ...] = (_text, _text, _int, _int, _int)


def _checked(rows: list[list[Any]], name: str, columns: tuple[_Column, ...]) -> list[tuple[Any, ...]]:
    """`rows` (each as wide as `columns`) with every value checked by its column; PushError names where."""
    return [
        tuple(check(row[j], f"{name}[{i}][{j}]") for j, check in enumerate(columns))
        for i, row in enumerate(rows)
    ]


class ConsoleBoard:
    """The registry's console data. `clock` (seconds) is `time.time` unless a test gives one."""

    def __init__(self, *, max_traces: int = MAX_TRACES, clock: Callable[[], float] = time.time) -> None:
        self.max_traces = max_traces
        self.clock = clock
        self.tools: dict[tuple[str, str], _Series] = {}
        self.edges: dict[tuple[str, str, str], _Series] = {}
        self.tokens: dict[tuple[str, str, str], list[int]] = {}
        self.traces: OrderedDict[str, _Trace] = OrderedDict()
        self.spans = 0  # spans held in all traces
        self.seq = 0
        self.evicted_traces = 0
        self.dropped_keys = 0
        self.pushes = 0

    # -- ingest --------------------------------------------------------------------------------------

    def ingest(self, body: Any, providers: Callable[[str], str]) -> None:
        """Add one push; `providers(endpoint)` names the agent serving at an endpoint ("" when unknown).
        Raises PushError on a malformed body (nothing of it is kept then)."""
        if not isinstance(body, dict):
            raise PushError("", "the push must be a JSON object")
        agent = _text(body.get("agent_id"), "agent_id")
        tools = self._rows(body, "tools", len(_TOOL_COLUMNS))
        edges = self._rows(body, "edges", len(_EDGE_COLUMNS))
        tokens = self._rows(body, "tokens", len(_TOKEN_COLUMNS))
        spans = self._rows(body, "spans", 9)
        checked_tools = _checked(tools, "tools", _TOOL_COLUMNS)
        checked_edges = _checked(edges, "edges", _EDGE_COLUMNS)
        checked_tokens = _checked(tokens, "tokens", _TOKEN_COLUMNS)
        checked_spans = [self._span(r, i, agent) for i, r in enumerate(spans)]
        now = self.clock()
        bucket = int(now // BUCKET_SECONDS) * BUCKET_SECONDS
        for tool, calls, errors, seconds, histogram in checked_tools:
            series = self._series(self.tools, (agent, tool))
            if series is not None:
                series.add(bucket, calls, errors, seconds, histogram)
        for capability, endpoint, calls, errors, seconds, histogram in checked_edges:
            key = (agent, capability, providers(endpoint) or endpoint)
            series = self._series(self.edges, key)
            if series is not None:
                series.add(bucket, calls, errors, seconds, histogram)
        for model, tool, tokens_in, tokens_out, requests in checked_tokens:
            row = self.tokens.get((agent, model, tool))
            if row is None:
                if self._full():
                    self.dropped_keys += 1
                    continue
                row = self.tokens[(agent, model, tool)] = [0, 0, 0]
            row[0] += tokens_in
            row[1] += tokens_out
            row[2] += requests
        for span in checked_spans:
            self._add_span(span)
        self.pushes += 1
        if self.pushes % 64 == 0:
            self.expire()

    @staticmethod
    def _rows(body: Mapping[str, Any], name: str, width: int) -> list[list[Any]]:
        rows = body.get(name, [])
        if not isinstance(rows, list):
            raise PushError(name, "must be a list")
        for index, row in enumerate(rows):
            if not isinstance(row, list) or len(row) != width:
                raise PushError(f"{name}[{index}]", f"must be a list of {width} values")
        return rows

    @staticmethod
    def _span(row: list[Any], index: int, agent: str) -> list[Any]:
        where = f"spans[{index}]"
        return [
            _hex_id(row[0], where + "[0]", 32),
            _hex_id(row[1], where + "[1]", 16),
            _hex_id(row[2], where + "[2]", 16) if row[2] else "",
            _text(row[3], where + "[3]"),
            _text(row[4], where + "[4]", 16),
            _text(row[5], where + "[5]"),
            _number(row[6], where + "[6]"),
            _number(row[7], where + "[7]"),
            _text(row[8], where + "[8]", 300),
            agent,
        ]

    def _full(self) -> bool:
        return len(self.tools) + len(self.edges) + len(self.tokens) >= MAX_KEYS

    def _series(self, table: dict[Any, _Series], key: Any) -> _Series | None:
        series = table.get(key)
        if series is None:
            if self._full():
                self.dropped_keys += 1
                return None
            series = table[key] = _Series()
        return series

    def _add_span(self, span: list[Any]) -> None:
        self.seq += 1
        trace = self.traces.get(span[0])
        if trace is None:
            trace = self.traces[span[0]] = _Trace(self.seq)
        else:
            trace.seq = self.seq
            self.traces.move_to_end(span[0])
        if len(trace.spans) < MAX_SPANS:
            trace.spans.append(span[1:])
            self.spans += 1
        else:
            trace.dropped += 1
        while len(self.traces) > self.max_traces or (self.spans > MAX_TOTAL_SPANS and len(self.traces) > 1):
            _, oldest = self.traces.popitem(last=False)
            self.spans -= len(oldest.spans)
            self.evicted_traces += 1

    def expire(self) -> None:
        """Forget buckets older than the window, and series left empty (their totals with them)."""
        oldest = int((self.clock() - WINDOW_SECONDS) // BUCKET_SECONDS) * BUCKET_SECONDS
        tables: tuple[dict[Any, _Series], ...] = (self.tools, self.edges)
        for table in tables:
            for key in list(table):
                series = table[key]
                series.expire(oldest)
                if not series.buckets:
                    del table[key]

    # -- views ---------------------------------------------------------------------------------------

    def view(self, since: int, names: Callable[[str], str], *, limit: int = 100) -> dict[str, Any]:
        """The console's document: traffic over the window, tokens, and the traces changed after `since`
        (newest first, at most `limit`)."""
        self.expire()
        now = self.clock()
        first = int((now - WINDOW_SECONDS) // BUCKET_SECONDS) * BUCKET_SECONDS + BUCKET_SECONDS
        starts = list(range(first, first + WINDOW_SECONDS, BUCKET_SECONDS))
        tools = [
            {"agent_id": agent, "agent": names(agent), "tool": tool, **_summary(series, starts)}
            for (agent, tool), series in sorted(self.tools.items())
        ]
        edges = [
            {
                "from": consumer,
                "from_name": names(consumer),
                "capability": capability,
                "to": provider,
                "to_name": names(provider),
                **_summary(series, starts),
            }
            for (consumer, capability, provider), series in sorted(self.edges.items())
        ]
        totals = _summary_of([s for s in self.tools.values()], starts)
        tokens = [
            {
                "agent_id": agent,
                "agent": names(agent),
                "model": model,
                "tool": tool,
                "input": row[0],
                "output": row[1],
                "requests": row[2],
            }
            for (agent, model, tool), row in sorted(self.tokens.items())
        ]
        traces: list[dict[str, Any]] = []
        for trace_id in reversed(self.traces):
            trace = self.traces[trace_id]
            if trace.seq <= since or len(traces) >= limit:
                break
            traces.append(
                {
                    "trace_id": trace_id,
                    "seq": trace.seq,
                    "dropped": trace.dropped,
                    "spans": [[*s[:8], s[8], names(s[8])] for s in trace.spans],
                }
            )
        return {
            "window_seconds": WINDOW_SECONDS,
            "bucket_seconds": BUCKET_SECONDS,
            "totals": totals,
            "tools": tools,
            "edges": edges,
            "tokens": tokens,
            "traces": traces,
            "seq": self.seq,
            "retained_traces": len(self.traces),
            "max_traces": self.max_traces,
            "evicted_traces": self.evicted_traces,
            "dropped_keys": self.dropped_keys,
        }

    def forget(self, agent_ids: Iterable[str]) -> None:
        """Purged agents: their series and tokens go (their spans stay in their traces)."""
        gone = set(agent_ids)
        tables: tuple[dict[Any, Any], ...] = (self.tools, self.edges, self.tokens)
        for table in tables:
            for key in [k for k in table if k[0] in gone]:
                del table[key]


def _summary(series: _Series, starts: list[int]) -> dict[str, Any]:
    summary = _summary_of([series], starts)
    summary["total_calls"], summary["total_errors"] = series.total_calls, series.total_errors
    return summary


def _summary_of(all_series: list[_Series], starts: list[int]) -> dict[str, Any]:
    calls = errors = 0
    seconds = 0.0
    histogram = [0] * _HISTOGRAM
    trend = [0] * len(starts)
    for series in all_series:
        for position, start in enumerate(starts):
            row = series.buckets.get(start)
            if row is None:
                continue
            calls += row[0]
            errors += row[1]
            seconds += row[2]
            trend[position] += row[0]
            for index, count in enumerate(row[3]):
                if count:
                    histogram[index] += count
    return {
        "calls": calls,
        "errors": errors,
        "error_rate": round(errors / calls, 4) if calls else 0.0,
        "avg_ms": round(seconds / calls * 1000, 3) if calls else 0.0,
        "p99_ms": round(percentile(histogram, 0.99) * 1000, 3),
        "trend": trend,
    }
