"""The adaptive concurrency limit (judge.llm.adaptive) and the rate-limit headers it reads."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Iterator

import pytest

from judge.llm.adaptive import AdaptiveLimit, LimitBoard, set_observer, snapshot
from judge.llm.ratelimit_headers import RateHeaders, headers_of, parse_duration
from judge.llm.retry import route_label


async def _grant(lim: AdaptiveLimit, n: int) -> list:
    return [await lim.acquire() for _ in range(n)]


async def test_it_opens_up_while_calls_succeed_and_the_limit_binds():
    lim = AdaptiveLimit("m", ceiling=None, start=2)
    a, b = await _grant(lim, 2)
    waiting = asyncio.ensure_future(lim.acquire())
    await asyncio.sleep(0)
    assert not waiting.done()  # the limit holds the third call back
    lim.release(a, ok=True)
    assert lim.limit == 3  # slow start: one more slot per success
    c = await waiting
    more = await _grant(lim, 1)  # every slot taken again: the next success opens one more
    lim.release(b, ok=True)
    assert lim.limit == 4
    for t in (c, *more):
        lim.release(t, ok=True)  # demand fell below the limit: no growth
    assert lim.limit == 4 and lim.in_flight == 0


async def test_successes_below_the_limit_do_not_open_it():
    lim = AdaptiveLimit("m", ceiling=None, start=8)
    (t,) = await _grant(lim, 1)
    lim.release(t, ok=True)
    assert lim.limit == 8


async def test_a_throttle_cuts_once_per_round_trip_then_grows_one_slot_a_round_trip():
    lim = AdaptiveLimit("m", ceiling=None, start=10)
    burst = await _grant(lim, 3)  # all started before any answer came back
    for t in burst:
        lim.release(t, throttle="429")
    assert lim.limit == pytest.approx(7.0) and lim.events["429"] == 3
    later = await _grant(lim, 7)
    lim.release(later[0], throttle="timeout")  # started after the cut: cuts again
    assert lim.limit == pytest.approx(4.9) and not lim.slow_start
    lim.release(later[1], ok=True)  # congestion avoidance: +1/limit per success
    assert lim.limit == pytest.approx(4.9 + 1 / 4.9)


async def test_ceiling_and_floor_hold():
    lim = AdaptiveLimit("m", ceiling=3, start=64)
    assert lim.limit == 3
    tickets = await _grant(lim, 3)
    for t in tickets:
        lim.release(t, ok=True)
    assert lim.limit == 3
    for _ in range(20):
        (t,) = await _grant(lim, 1)
        lim.release(t, throttle="429")
    assert lim.limit == 1


async def test_exhausted_rate_limit_headers_hold_new_calls_for_the_named_wait():
    lim = AdaptiveLimit("m", ceiling=None, start=4)
    (t,) = await _grant(lim, 1)
    gone = RateHeaders.parse(
        {"x-ratelimit-remaining-requests": "0", "x-ratelimit-limit-requests": "10",
         "x-ratelimit-reset-requests": "1s", "retry-after-ms": "80"}
    )  # fmt: skip
    lim.release(t, ok=True, headers=gone)
    assert lim.events["headers"] == 1 and lim.limit == pytest.approx(2.8)
    loop = asyncio.get_running_loop()
    asked = loop.time()
    second = asyncio.ensure_future(lim.acquire())
    await asyncio.sleep(0)
    assert not second.done()  # free slots, yet held: the provider said nothing is left
    await second
    assert loop.time() - asked >= 0.07


class Clock:
    """A clock the test moves by hand (the limit's timers may fire: they only re-check)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@contextlib.contextmanager
def listening() -> Iterator[list[tuple[str, int]]]:
    """What the observer hears while the block runs: (event, window) pairs."""
    from judge.llm import adaptive

    heard: list[tuple[str, int]] = []
    before = adaptive._observer
    set_observer(lambda limit, event: heard.append((event, limit.window())))
    try:
        yield heard
    finally:
        set_observer(before)


async def _settle() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


async def test_after_a_pause_calls_restart_one_at_a_time_paced_by_the_named_wait():
    """The end of a pause releases one waiting call, not ``limit - in_flight`` of them at once
    (against a provider whose window refilled by about one call, all but one would be
    refused); the window then opens one more call per named wait, and one per success of a
    call started since the pause, until it is back at the limit. (Times are binary fractions:
    the hand-moved clock adds them exactly.)"""
    clock = Clock()
    lim = AdaptiveLimit("m", ceiling=None, start=10, clock=clock)
    old = await _grant(lim, 4)  # in flight before the provider refuses
    clock.now += 0.5
    lim.release(old[0], throttle="429", headers=RateHeaders.parse({"retry-after-ms": "125"}))
    assert lim.limit == pytest.approx(7.0) and lim.window() == 1
    waiting = [asyncio.ensure_future(lim.acquire()) for _ in range(8)]
    await _settle()
    lim.release(old[1], ok=True)  # a call from before the pause: opens nothing
    assert not any(w.done() for w in waiting) and lim.window() == 1  # paused
    lim.release(old[2], ok=True)
    lim.release(old[3], ok=True)

    async def moved(by: float) -> int:
        clock.now += by
        lim._wake()
        await _settle()
        return sum(w.done() for w in waiting)

    assert await moved(0.125) == 1 and waiting[0].done()  # the pause is over: one call
    assert await moved(0.0625) == 1  # half a wait: nothing more
    assert await moved(0.0625) == 2  # a whole wait since: the provider refilled one call
    lim.release(waiting[0].result(), ok=True)  # a call of the restart succeeded: one more
    assert lim.window() == 3 and await moved(0) == 4
    assert await moved(1.0) == 8  # many waits later: back at the limit, the restart is over
    assert lim.restart is None and lim.window() == 7 and lim.in_flight == 7
    for w in waiting[1:]:
        lim.release(w.result(), ok=True)
    assert lim.in_flight == 0


async def test_a_refusal_while_restarting_restarts_again_and_a_stale_one_only_waits():
    clock = Clock()
    lim = AdaptiveLimit("m", ceiling=None, start=10, clock=clock)
    wait = RateHeaders.parse({"retry-after-ms": "125"})
    stale, first = await _grant(lim, 2)
    clock.now += 0.5
    lim.release(first, throttle="429", headers=wait)
    clock.now += 0.25  # the pause, and one more wait: a window of 2 (stale is in flight)
    (a,) = await _grant(lim, 1)
    lim.release(a, ok=True)  # a call of the restart succeeded: a window of 3
    b, c = await _grant(lim, 2)
    assert lim.window() == 3 and lim.in_flight == 3
    lim.release(stale, throttle="429", headers=wait)  # started before the restart
    assert lim.limit == pytest.approx(7.0) and lim.restart == 2  # no cut, no new restart ...
    assert lim._paused_for() == pytest.approx(0.125)  # ... but it waits as the provider says
    clock.now += 0.0625
    lim.release(b, throttle="429", headers=wait)  # a call of the restart refused
    assert lim.limit == pytest.approx(4.9) and lim.window() == 1  # cut, and from one again
    lim.release(c, ok=True)  # started before that restart: opens nothing
    assert lim.window() == 1


async def test_the_observer_hears_the_window_move():
    """/metrics follows the window through the observer: a throttle's pause takes it to one
    call, a success of the restart opens it again."""
    clock = Clock()
    lim = AdaptiveLimit("m", ceiling=None, start=10, clock=clock)
    with listening() as heard:
        (t,) = await _grant(lim, 1)
        clock.now += 0.5
        lim.release(t, throttle="429", headers=RateHeaders.parse({"retry-after-ms": "125"}))
        clock.now += 0.125
        (a,) = await _grant(lim, 1)
        lim.release(a, ok=True)
    assert heard == [("429", 1), ("limit", 2)]


async def test_the_observer_hears_the_window_open_with_time_alone():
    """With nothing waiting, the window still reaches /metrics as the pause ends and each
    step of the restart's pace passes (real time: a 40 ms wait)."""
    lim = AdaptiveLimit("m", ceiling=None, start=6)
    with listening() as heard:
        (t,) = await _grant(lim, 1)
        lim.release(t, throttle="429", headers=RateHeaders.parse({"retry-after-ms": "40"}))
        assert heard == [("429", 1)] and lim.limit == pytest.approx(4.2)
        deadline = asyncio.get_running_loop().time() + 10
        while lim.restart is not None and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)
    assert lim.restart is None and lim.in_flight == 0  # back at the limit, no call made
    windows = [w for _, w in heard]
    # heard as it opened, without a call (a late timer on a busy machine may merge two steps)
    assert windows[0] == 1 and windows[-1] == 4 and len(windows) >= 2
    assert all(a < b for a, b in itertools.pairwise(windows))
    assert [e for e, _ in heard[1:]] == ["limit"] * (len(heard) - 1)
    assert lim._timer is None  # and the timers stopped with the restart


async def test_a_release_outside_an_event_loop_sets_no_timer():
    """Watched, but released where no loop runs: no timer, no error; the window is right."""
    lim = AdaptiveLimit("m", ceiling=None, start=6)
    with listening() as heard:
        (t,) = await _grant(lim, 1)
        await asyncio.to_thread(  # a thread without a running loop
            lim.release, t, throttle="429", headers=RateHeaders.parse({"retry-after-ms": "40"})
        )
    assert lim._timer is None and lim.window() == 1 and heard == [("429", 1)]


async def test_nearly_used_up_windows_stop_growth_without_a_cut():
    lim = AdaptiveLimit("m", ceiling=None, start=1)
    (t,) = await _grant(lim, 1)
    low = RateHeaders.parse(
        {"x-ratelimit-remaining-requests": "2", "x-ratelimit-limit-requests": "100"}
    )
    lim.release(t, ok=True, headers=low)
    assert lim.limit == 1 and not lim.events


async def test_a_cancelled_waiter_gives_its_place_back():
    lim = AdaptiveLimit("m", ceiling=None, start=1)
    (t,) = await _grant(lim, 1)
    gone = asyncio.ensure_future(lim.acquire())
    kept = asyncio.ensure_future(lim.acquire())
    await asyncio.sleep(0)
    gone.cancel()
    lim.release(t)
    await kept
    assert lim.in_flight == 1 and gone.cancelled()


async def test_the_board_keeps_one_limit_per_route_and_reports_them():
    board = LimitBoard(ceiling=5)
    first = board.get(route_label("openai/gpt-4o", None))
    assert board.get("openai/gpt-4o") is first and first.ceiling == 5
    other = board.get(route_label("openai/x", "http://user:secret@127.0.0.1:9/v1"))
    assert other.route == "openai/x@127.0.0.1:9"  # never the credentials or the path
    routes = {row["route"]: row for row in snapshot()}
    assert routes["openai/x@127.0.0.1:9"]["limit"] == 5
    assert routes["openai/x@127.0.0.1:9"]["window"] == 5  # not restarting after a pause


def test_rate_limit_headers_are_read_in_openai_and_litellm_shapes():
    h = RateHeaders.parse(
        {"llm_provider-x-ratelimit-remaining-tokens": "0",
         "llm_provider-x-ratelimit-limit-tokens": "1000",
         "x-ratelimit-reset-tokens": "2s", "X-RateLimit-Remaining-Requests": "5",
         "x-ratelimit-limit-requests": "50"}
    )  # fmt: skip
    assert h.exhausted() and h.left_share() == 0 and h.wait_s() == pytest.approx(0.002)
    assert h.left_requests == 5
    assert parse_duration("1h2m3.5s") == pytest.approx(3723.5)
    assert parse_duration("soon") is None

    class Resp:
        def __init__(self) -> None:
            self._hidden_params = {"additional_headers": {"x-ratelimit-remaining-requests": "3"}}

    assert headers_of(Resp()).left_requests == 3
    assert headers_of(object()) is None
