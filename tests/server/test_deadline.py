"""Deadlines of the call path (one timer per loop) and the agent protocol's one-write transport."""

from __future__ import annotations

import asyncio

import pytest

from mesh_framework.deadline import Deadlines, Expired, within
from mesh_framework.protocol.http_protocol import _OneWriteTransport


async def test_deadlines_fire_in_order_and_cleared_ones_never() -> None:
    loop = asyncio.get_running_loop()
    deadlines = Deadlines.of_loop(loop)
    fired: dict[str, float] = {}
    done = asyncio.Event()

    def fire(name: str) -> None:
        fired[name] = loop.time()
        if name == "late":
            done.set()

    start = loop.time()
    deadlines.arm(1.0, lambda: fire("late"))
    cleared = deadlines.arm(0.1, lambda: fire("cleared"))
    deadlines.arm(0.05, lambda: fire("early"))  # before the timer already set for the others
    deadlines.clear(cleared)
    await asyncio.wait_for(done.wait(), 10)
    assert list(fired) == ["early", "late"]
    assert start + 0.05 <= fired["early"] < start + 1.0  # on its own time, not with the late one
    assert fired["late"] >= start + 1.0


async def test_one_set_of_deadlines_per_loop() -> None:
    loop = asyncio.get_running_loop()
    assert Deadlines.of_loop(loop) is Deadlines.of_loop(loop)
    other = asyncio.new_event_loop()
    try:
        assert Deadlines.of_loop(other) is not Deadlines.of_loop(loop)
    finally:
        other.close()


async def test_within_expires_and_cancels_the_awaited_work() -> None:
    cancelled = asyncio.Event()

    async def slow() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with pytest.raises(Expired):
        await within(0.05, slow())
    assert cancelled.is_set()
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]


async def test_within_returns_the_result_and_leaves_no_deadline_behind() -> None:
    async def quick() -> int:
        await asyncio.sleep(0)
        return 7

    assert await within(5, quick()) == 7
    await asyncio.sleep(0)  # the task is not cancelled later by the cleared deadline
    assert Deadlines.of_loop(asyncio.get_running_loop())._pending == set()


async def test_the_outer_deadline_wins_over_a_longer_inner_one() -> None:
    async def inner() -> None:
        await within(10, asyncio.sleep(10))

    with pytest.raises(Expired):
        await within(0.05, inner())


async def test_a_timeout_error_of_the_awaited_code_is_not_the_deadline() -> None:
    async def fails() -> None:
        raise TimeoutError("the code's own")

    with pytest.raises(TimeoutError, match="the code's own"):
        await within(5, fails())


class _Recorder:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


def _transport() -> tuple[_OneWriteTransport, _Recorder]:
    recorder = _Recorder()
    return _OneWriteTransport(recorder, asyncio.get_running_loop()), recorder  # type: ignore[arg-type]


HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n"


async def test_a_head_and_its_body_go_out_in_one_write() -> None:
    transport, recorder = _transport()
    transport.write(HEAD)
    transport.write(b"{}")
    assert recorder.writes == [HEAD + b"{}"]
    await asyncio.sleep(0)
    assert recorder.writes == [HEAD + b"{}"]  # the scheduled flush finds nothing held


async def test_a_streamed_head_goes_out_on_the_next_loop_turn() -> None:
    transport, recorder = _transport()
    transport.write(HEAD)
    assert recorder.writes == []
    await asyncio.sleep(0)
    assert recorder.writes == [HEAD]
    transport.write(b"event: message\ndata: {}\n\n")
    assert recorder.writes == [HEAD, b"event: message\ndata: {}\n\n"]


async def test_close_writes_a_held_head_first_and_other_writes_pass_through() -> None:
    transport, recorder = _transport()
    transport.write(b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 1\r\n\r\nx")  # head and body at once
    transport.write(HEAD)
    transport.close()
    assert recorder.writes == [b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 1\r\n\r\nx", HEAD]
    assert recorder.closed
    assert transport.is_closing()


async def test_a_failing_callback_does_not_stop_the_others() -> None:
    loop = asyncio.get_running_loop()
    reported: list[dict[str, object]] = []
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    fired: list[str] = []

    def fails() -> None:
        raise RuntimeError("boom")

    deadlines = Deadlines.of_loop(loop)
    deadlines.arm(0.01, fails)
    deadlines.arm(0.01, lambda: fired.append("other"))
    async with asyncio.timeout(5):  # bounded: both have run once the second one fired
        while not (fired and reported):
            await asyncio.sleep(0.005)
    assert fired == ["other"]
    assert [str(context["exception"]) for context in reported] == ["boom"]


def test_a_closed_loop_and_its_deadlines_are_not_kept_alive() -> None:
    import gc
    import weakref

    loop = asyncio.new_event_loop()
    Deadlines.of_loop(loop).arm(30, lambda: None)  # a timer pending in the loop when it closes
    loop.close()
    gone = weakref.ref(loop)
    del loop
    gc.collect()
    assert gone() is None
