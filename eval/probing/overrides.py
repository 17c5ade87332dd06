"""Human overrides of image verdicts, storage-agnostic.

An override is addressed by ``"<node id>/<test index>/<image index>"`` and kept beside the
judge's verdict with who gave it and when. The engine reads the current overrides before it
writes later inputs, topics and reflections, so people's corrections steer the rest of a run;
metrics and agreement are computed from the tree with overrides applied.

Example:
    >>> from eval.probing.tree import ProbeNode, ProbeTest
    >>> root = ProbeNode(id="n0", topic="t", depth=0,
    ...                  tests=[ProbeTest(input="a", judge_verdicts=[True, False])])
    >>> key = target_key(root, "n0", 0, 1)
    >>> apply_overrides(root, {key: make_override(True, "ana", "2026-01-01T00:00:00Z")})
    >>> root.tests[0].verdicts, root.tests[0].judge_verdicts
    ([True, True], [True, False])
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from eval.probing.tree import Override, ProbeNode


class OverrideError(ValueError):
    """An override that names no existing image verdict, or is malformed."""


def override_key(node_id: str, test: int, image: int) -> str:
    """The address of one image verdict."""
    return f"{node_id}/{test}/{image}"


def target_key(root: ProbeNode, node_id: str, test: int, image: int) -> str:
    """The key of an existing image verdict; :class:`OverrideError` naming what is missing."""
    node = root.find(node_id)
    if node is None:
        raise OverrideError(f"node {node_id!r} is not in this probe's tree (ids look like n0.1)")
    if not 0 <= test < len(node.tests):
        raise OverrideError(
            f"node {node_id!r} has {len(node.tests)} tests; test {test} does not exist"
        )
    n = len(node.tests[test].judge_verdicts)
    if not 0 <= image < n:
        raise OverrideError(f"test {test} of node {node_id!r} has {n} labelled images, not {image}")
    return override_key(node_id, test, image)


def make_override(
    verdict: bool, who: str, when: str | None = None, note: str | None = None
) -> Override:
    """An override stamped now (UTC, ISO 8601) unless ``when`` is given."""
    stamp = when or dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return Override(verdict=verdict, who=who, when=stamp, note=note)


def apply_overrides(root: ProbeNode, overrides: Mapping[str, Override | dict[str, Any]]) -> None:
    """Attach overrides to the tests they address (unknown addresses are ignored)."""
    by_node = {n.id: n for n in root.walk()}
    for node in by_node.values():
        for t in node.tests:
            t.overrides = {}
    for key, value in overrides.items():
        node_id, _, rest = key.partition("/")
        test_s, _, image_s = rest.partition("/")
        target = by_node.get(node_id)
        if target is None or not test_s.isdigit() or not image_s.isdigit():
            continue
        if int(test_s) < len(target.tests):
            ov = value if isinstance(value, Override) else Override.model_validate(value)
            target.tests[int(test_s)].overrides[image_s] = ov
