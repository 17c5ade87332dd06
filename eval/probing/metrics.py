"""Metrics of a probe tree: #bugs, APR and AFR over its tests, and judge–human agreement.

Following the paper: a test pair (image, input) passes or fails; APR = passes / labelled pairs
of the tree's tests (localisation renders are never counted), AFR = 1 − APR; a *bug* is an
input whose pass rate is below the bug threshold (0.75 by default). Unlabelled images (the judge
could not decide, the backend refused) are excluded and counted.

Example:
    >>> from eval.probing.tree import ProbeNode, ProbeTest
    >>> root = ProbeNode(id="n0", topic="t", depth=0, tests=[
    ...     ProbeTest(input="a", judge_verdicts=[True, True, False, True]),
    ...     ProbeTest(input="b", judge_verdicts=[False, False, True, True])])
    >>> m = tree_metrics(root)
    >>> m["bugs"], m["apr"], m["afr"], m["n_inputs"], m["n_images"]
    (1, 0.625, 0.375, 2, 8)
"""

from __future__ import annotations

from typing import Any

from eval.probing.tree import ProbeNode, ProbeTest


def _tests_metrics(tests: list[ProbeTest], bug_threshold: float) -> dict[str, Any]:
    labelled = [v for t in tests for v in t.verdicts if v is not None]
    rated = [t for t in tests if t.pass_rate is not None]
    passes = sum(labelled)
    apr = passes / len(labelled) if labelled else None
    return {
        "bugs": sum(t.pass_rate < bug_threshold for t in rated if t.pass_rate is not None),
        "apr": None if apr is None else round(apr, 4),
        "afr": None if apr is None else round(1 - apr, 4),
        "n_inputs": len(rated),
        "n_images": len(labelled),
        "n_unlabelled": sum(1 for t in tests for v in t.verdicts if v is None)
        + sum(1 for t in tests if not t.verdicts),
    }


def tree_metrics(root: ProbeNode, bug_threshold: float = 0.75) -> dict[str, Any]:
    """The metrics over every node's tests, plus judge–human agreement."""
    tests = [t for n in root.walk() for t in n.tests]
    out = _tests_metrics(tests, bug_threshold)
    out["n_nodes"] = len(root.walk())
    out["agreement"] = agreement(tests)
    return out


def agreement(tests: list[ProbeTest]) -> dict[str, Any]:
    """How often the judge's verdict matched a person's, over the images people labelled."""
    pairs = [
        (t.judge_verdicts[int(k)], ov.verdict)
        for t in tests
        for k, ov in t.overrides.items()
        if int(k) < len(t.judge_verdicts)
    ]
    decided = [(j, h) for j, h in pairs if j is not None]
    agree = sum(1 for j, h in decided if j == h)
    return {
        "n_overrides": len(pairs),
        "n_compared": len(decided),
        "agree": agree,
        "rate": round(agree / len(decided), 4) if decided else None,
    }


def comparison(adaptive: dict[str, Any], baseline: dict[str, Any]) -> dict[str, Any]:
    """Adaptive tree vs non-adaptive baseline: bugs found and the APR gap.

    Example:
        >>> comparison({"bugs": 6, "apr": 0.5, "n_inputs": 10}, {"bugs": 3, "apr": 0.7,
        ...             "n_inputs": 10})["bugs_ratio"]
        2.0
    """
    a_apr, b_apr = adaptive.get("apr"), baseline.get("apr")
    return {
        "adaptive": {k: adaptive.get(k) for k in ("bugs", "apr", "n_inputs", "n_images")},
        "baseline": {k: baseline.get(k) for k in ("bugs", "apr", "n_inputs", "n_images")},
        "bugs_ratio": round(adaptive["bugs"] / baseline["bugs"], 4) if baseline["bugs"] else None,
        "extra_bugs": adaptive["bugs"] - baseline["bugs"],
        "apr_gap": None if a_apr is None or b_apr is None else round(b_apr - a_apr, 4),
    }
