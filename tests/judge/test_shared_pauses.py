"""The provider's named waits shared by the processes of a host (judge.llm.shared_pauses) and
the adaptive limits that write and read them."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from judge.llm import shared_pauses
from judge.llm.adaptive import AdaptiveLimit, LimitBoard
from judge.llm.ratelimit_headers import RateHeaders
from judge.llm.shared_pauses import SIZE, SLOTS, SharedPauses, route_key
from tests.judge.test_adaptive_limit import Clock, _grant, _settle

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def table(tmp_path: Path) -> Path:
    return SharedPauses.create(tmp_path / "llm-pauses")


def test_a_published_wait_is_read_by_another_handle_until_it_ends(table: Path) -> None:
    clock = Clock()
    mine, theirs = SharedPauses(table, clock=clock), SharedPauses(table, clock=clock)
    assert theirs.read("r") is None
    mine.publish("r", wait_s=2.0, pace=0.5)
    assert theirs.read("r") == (102.0, 0.5)
    assert theirs.read("other route") is None
    mine.publish("r", wait_s=1.0, pace=0.25)  # shorter than the wait on record: kept
    assert theirs.read("r") == (102.0, 0.5)
    theirs.publish("r", wait_s=3.0, pace=3.0)  # longer: replaces it
    assert mine.read("r") == (103.0, 3.0)
    clock.now = 103.0
    assert mine.read("r") is None  # over
    mine.publish("r", wait_s=0.5, pace=0.5)  # a new wait after the last one ended
    assert theirs.read("r") == (103.5, 0.5)
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        mine.publish("s", wait_s=bad, pace=1.0)
        mine.publish("s", wait_s=1.0, pace=bad)
    assert theirs.read("s") is None
    mine.close()
    theirs.close()


def test_a_full_table_shares_no_more_routes_and_breaks_nothing(table: Path) -> None:
    clock = Clock()
    pauses = SharedPauses(table, clock=clock)
    routes = [f"route {i}" for i in range(SLOTS)]
    for route in routes:
        pauses.publish(route, wait_s=1.0, pace=1.0)
    assert all(pauses.read(route) == (101.0, 1.0) for route in routes)  # collisions probed
    pauses.publish("one too many", wait_s=1.0, pace=1.0)
    assert pauses.read("one too many") is None
    assert len({route_key(r) % SLOTS for r in routes}) < SLOTS  # some did collide


def test_a_record_caught_mid_write_reads_as_nothing(table: Path) -> None:
    clock = Clock()
    pauses = SharedPauses(table, clock=clock)
    pauses.publish("r", wait_s=1.0, pace=1.0)
    slot = route_key("r") % SLOTS
    with table.open("r+b") as f:  # a writer that stopped half-way: the sequence is odd
        f.seek(slot * SIZE // SLOTS)
        f.write((7).to_bytes(8, "little"))
    assert SharedPauses(table, clock=clock).read("r") is None


def test_a_file_that_is_not_a_table_is_refused_with_what_to_do(tmp_path: Path) -> None:
    other = tmp_path / "not-a-table"
    other.write_bytes(b"x" * 10)
    with pytest.raises(ValueError, match=r"not a shared pause table.*SharedPauses\.create"):
        SharedPauses(other)
    fresh = SharedPauses.create(tmp_path / "sub" / "llm-pauses")  # replaces, makes folders
    assert fresh.read_bytes() == bytes(SIZE)


def test_the_environment_names_the_table_and_a_bad_name_means_none(
    table: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(shared_pauses.ENV, raising=False)
    assert shared_pauses.from_env() is None and LimitBoard(None).shared is None
    monkeypatch.setenv(shared_pauses.ENV, str(tmp_path / "missing"))
    assert shared_pauses.from_env() is None  # the limits then work per process
    monkeypatch.setenv(shared_pauses.ENV, str(table))
    held = shared_pauses.from_env()
    assert held is not None and held is shared_pauses.from_env()  # opened once
    assert LimitBoard(None).shared is held


async def test_a_wait_one_process_hears_holds_the_others_then_they_restart_from_one(
    table: Path,
) -> None:
    clock = Clock()

    def process(route: str) -> AdaptiveLimit:  # a process's limit, with its own handle
        shared = SharedPauses(table, clock=clock)
        return AdaptiveLimit(route, ceiling=None, start=10, clock=clock, shared=shared)

    a, b, elsewhere = process("m"), process("m"), process("n")
    (first,) = await _grant(a, 1)
    b_calls = await _grant(b, 2)  # b is busy too, and has heard nothing
    clock.now += 0.5
    a.release(first, throttle="429", headers=RateHeaders.parse({"retry-after": "2"}))
    waiting = [asyncio.ensure_future(b.acquire()) for _ in range(3)]
    await _settle()
    assert not any(w.done() for w in waiting)  # b holds its new calls for a's wait
    assert b.events["shared_wait"] == 1 and b._paused_for() == pytest.approx(2.0)
    assert b.limit == 10 and b.window() == 1  # no cut of b's own limit; a restart from one
    assert (await _grant(elsewhere, 1)) and elsewhere.events["shared_wait"] == 0
    for call in b_calls:  # b's calls from before the wait come back: they open nothing
        b.release(call, ok=True)
    await _settle()
    assert not any(w.done() for w in waiting) and b.window() == 1
    clock.now += 2.0
    b._wake()
    await _settle()
    assert sum(w.done() for w in waiting) == 1  # the wait is over: one call
    b.release(waiting[0].result(), ok=True)  # a call of the restart came back: a window of 2
    await _settle()
    assert b.window() == 2 and b.in_flight == 2 and all(w.done() for w in waiting)
    a.release(await a.acquire(), ok=True)  # a's own wait, read back, is not taken again
    assert a.events["shared_wait"] == 0 and b.events["shared_wait"] == 1


def test_processes_of_one_host_share_the_wait_on_their_own_clocks(table: Path) -> None:
    """Two real processes: one hears a 3-second wait; the other, started after it, holds its
    first call until that wait is over (time.monotonic is one clock for the host)."""
    hear = textwrap.dedent(f"""
        import asyncio
        from judge.llm.adaptive import AdaptiveLimit
        from judge.llm.ratelimit_headers import RateHeaders
        from judge.llm.shared_pauses import SharedPauses

        async def main():
            lim = AdaptiveLimit("m", ceiling=None, shared=SharedPauses({str(table)!r}))
            ticket = await lim.acquire()
            lim.release(ticket, throttle="429", headers=RateHeaders.parse({{"retry-after": "3"}}))
            print(lim._resume_at)

        asyncio.run(main())
    """)
    done = subprocess.run(
        [sys.executable, "-c", hear], cwd=REPO, check=True, timeout=120, capture_output=True
    )
    until = float(done.stdout.decode().split()[-1])

    async def other() -> tuple[float, float]:
        lim = AdaptiveLimit("m", ceiling=None, shared=SharedPauses(table))
        asked = time.monotonic()
        await lim.acquire()
        return asked, time.monotonic()

    asked, started = asyncio.run(other())
    assert asked < until, "the wait was over before the other process asked: nothing tested"
    assert started >= until - 0.005  # held until the wait the first process heard was over
    assert started - until < 1.0
