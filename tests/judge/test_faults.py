"""With 30% of provider calls failing (429, 500, truncated JSON), submissions end fully scored."""

from __future__ import annotations

from tests.conftest import submission


async def test_thirty_percent_faults_still_fully_scored(make_judge, provider):
    provider.set_fault_rate(0.3, kinds=("429", "500", "truncated"), seed=11)
    judge = make_judge()
    results = [
        await judge.ascore(submission("CO", n_checks=6, prompt=f"a red cube #{i}"), cache=False)
        for i in range(4)
    ]
    assert all(r.status == "scored" for r in results)
    assert sum(provider.fault_counts.values()) > 10
    assert sum(r.usage.retries + r.usage.reasks for r in results) > 10
