"""The run_work node: a request's items run concurrently in one graph task, at most
``graph_concurrency`` at once, and their outcomes keep the plan's order."""

from __future__ import annotations

import pytest

from benchmarks.score import bench_submission
from judge.agent.graph import compiled_graph
from judge.agent.nodes.route import work_sends


@pytest.fixture(scope="module")
def co12() -> dict:
    return bench_submission(12, side=128)


@pytest.mark.parametrize(("limit", "most"), [(1, 2), (3, 3), (96, 34)])
async def test_items_in_flight_follow_graph_concurrency(
    make_judge, provider, co12: dict, limit: int, most: int
) -> None:
    provider.latency = 0.02  # long enough for concurrent items to overlap at the provider
    judge = make_judge(graph_concurrency=limit, speculative_safety=False, cache=False)
    result = await judge.ascore(co12)
    assert result.status == "scored" and provider.calls == 34
    # the safety gate (its 2 calls at once) runs first, then at most `limit` items (a call each)
    assert provider.max_in_flight <= most
    if limit > 1:
        assert provider.max_in_flight > 1


async def test_outcomes_keep_the_plan_order(make_judge, provider, co12: dict) -> None:
    judge = make_judge(cache=False)
    ctx = judge.prepare(co12)
    planned = ctx.mode.plan(ctx)
    state = await compiled_graph().ainvoke({}, context=ctx)
    assert [o.item.key for o in state["outcomes"]] == [item.key for item in planned]
    sends = work_sends({"work": planned})
    assert len(sends) == 1 and sends[0].node == "run_work" and sends[0].arg["items"] == planned
    assert work_sends({"work": []}) == []


def test_the_limit_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from judge.config import JudgeSettings

    monkeypatch.setenv("JUDGE_GRAPH_CONCURRENCY", "3")
    assert JudgeSettings().graph_concurrency == 3
    monkeypatch.setenv("JUDGE_GRAPH_CONCURRENCY", "0")
    with pytest.raises(ValueError, match="graph_concurrency"):
        JudgeSettings()
