"""``compute_all``: every (or selected) shift metric on one source/edit pair.

Example::

    from PIL import Image
    from skills.metrics import compute_all

    metrics = compute_all(Image.open("src.png"), Image.open("edit.png"), "Add a red hat.")
    metrics["color_shift"].value            # ΔE units, larger = more colour change
    metrics["text_rendering"].applicable    # False: nothing quoted to render
    {name: m.as_dict() for name, m in metrics.items()}   # the JSON of an edit result

    # a model decided applicability (one judge call listing all metrics):
    compute_all(src, edit, instr, applicability={"face_identity": (False, "stylisation")})
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from PIL import Image

from skills.extras import from_missing_module
from skills.metrics.inputs import MAX_SIDE, prepare_pair
from skills.metrics.registry import MetricOptions, get_metric, metric_names
from skills.metrics.types import MetricValue

log = logging.getLogger(__name__)
Decision = bool | tuple[bool, str | None]


def _decided(decision: Decision) -> tuple[bool, str | None]:
    if isinstance(decision, bool):
        return decision, None if decision else "decided not applicable by the model"
    ok, reason = decision
    return bool(ok), reason or (None if ok else "decided not applicable by the model")


def compute_all(
    source: Image.Image,
    edited: Image.Image,
    instruction: str,
    *,
    metrics: Iterable[str] | None = None,
    applicability: Mapping[str, Decision] | None = None,
    dinov2: str | None = None,
    requested_text: Sequence[str] | None = None,
    max_side: int = MAX_SIDE,
) -> dict[str, MetricValue]:
    """Shift metrics of an edit, keyed by metric name (docs/design.md#edit-submission-and-result).

    ``metrics`` selects metric names (default: all registered). ``applicability`` passes a
    model's decision per metric (``True``/``False`` or ``(bool, reason)``); metrics it does
    not name fall back to the rules on the instruction. ``dinov2`` is a local DINOv2 folder
    for ``structure_distance``. ``requested_text`` is the text the edit should show when it
    is known otherwise (e.g. read by a model from an unquoted instruction): it replaces the
    quoted-text rule, so ``text_rendering`` applies unless ``applicability`` says no. A
    metric that fails returns ``value=None`` with the error as its reason instead of
    raising; bad inputs (not an image, an empty image, a non-string
    instruction) raise ``TypeError``/``ValueError`` naming the problem.
    """
    if not isinstance(instruction, str):
        raise TypeError(f"instruction must be a string, got {type(instruction).__name__}")
    names = list(metrics) if metrics is not None else metric_names()
    chosen = [get_metric(n) for n in names]
    pair = prepare_pair(source, edited, max_side=max_side)
    options = MetricOptions(dinov2=dinov2)
    decided = dict(applicability or {})
    results: dict[str, MetricValue] = {}
    for metric in chosen:
        ok, reason, facts = metric.applicability(instruction)
        by = "rules"
        if metric.name == "text_rendering" and requested_text is not None:
            wanted = [t for t in requested_text if t.strip()]
            ok, facts = bool(wanted), {"requested_text": wanted}
            reason = None if wanted else "no requested text was given"
        if metric.name in decided:
            ok, reason = _decided(decided[metric.name])
            by = "model"
        if not ok:
            results[metric.name] = MetricValue.not_applicable(
                reason or "not applicable", applicability_by=by
            )
            continue
        start = time.perf_counter()
        try:
            value = metric.compute(pair, options, facts)
        except Exception as exc:  # one metric failing must not lose the others
            if missing := from_missing_module(exc, f"the {metric.name} metric", "local"):
                value = MetricValue.failed(str(missing))  # the core install: say what to add
            else:
                log.warning("metric %s failed: %s", metric.name, exc)
                value = MetricValue.failed(f"failed: {type(exc).__name__}: {exc}")
        extra: dict[str, Any] = {
            "applicability_by": by,
            "seconds": round(time.perf_counter() - start, 4),
        }
        if pair.notes:
            extra["input_notes"] = list(pair.notes)
        results[metric.name] = MetricValue(
            value=value.value,
            applicable=value.applicable,
            reason=value.reason,
            details={**value.details, **extra},
        )
    return results
