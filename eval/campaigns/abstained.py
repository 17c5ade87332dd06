"""``judge campaign create SOURCE --from-abstained RESULTS``: people for what no judge trusted.

RESULTS are results marked by a trust policy (``judge trust apply``, or scored with
``--trust``): every decision carries ``trusted``. The campaign keeps only the source's items
whose decision of the campaign's criterion was not trusted (docs/trust.md):

- ``--kind pairwise``: a comparison's ``criteria.<criterion>`` (``trusted: false``) picks the
  source's pair of the same prompt (the result's ``prompt_id``, else its ``comparison_id``)
  and the same two models. The item takes the comparison's id and shows its models in the
  comparison's a/b order, so the votes export names the result and ``judge trust merge`` and
  the next ``judge trust calibrate`` read it as it is.
- ``--kind rating``: a 1–5 score of the criterion (a submission's ``subjective.image.<dim>``,
  an edit's ``criteria.<name>``) picks the source's output whose item id (``PROMPT:MODEL``)
  is the result's ``submission_id``, or whose prompt id is, when that prompt has one output.
  The item takes the ``submission_id``.

Checklist verdicts are left out and counted: a campaign has no yes/no task, and a 1–5 rating
of a checkpoint would not be a verdict the merge could put back. Rankings are refused (a
policy trusts winners of pairs, not orders).

Example::

    body, note = abstained_for_campaign(body, Path("trusted.jsonl"))
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from eval.trust.results_io import read_results
from judge.trust import result_id, trust_items, unwrap
from judge.trust.errors import TrustError


def _untrusted(
    results: list[dict[str, Any]], kind: str, criterion: str
) -> tuple[dict[str, dict[str, Any]], Counter[str]]:
    """``{result id: result}`` of results whose decision of ``criterion`` was not trusted, and
    the count of untrusted decisions by kind type (verdicts included)."""
    flagged, counts, picked = False, Counter[str](), {}
    for result in results:
        for item in trust_items(result):
            if "trusted" not in item.node:
                continue
            flagged = True
            if item.node["trusted"] is True:
                continue
            counts[item.kind_type] += 1
            name = item.criterion.split(".", 1)[-1] if item.kind_type == "rating" else None
            wanted = (kind == "pairwise" and item.kind == f"winner.{criterion}") or (
                kind == "rating"
                and item.kind in (f"rating.image.{name}", f"rating.edit.{name}")
                and name == criterion
            )
            if wanted:
                picked[result_id(result)] = result
    if not flagged:
        raise TrustError(
            "the results carry no trust flags: apply a policy first (`judge trust apply`, or "
            "score with --trust POLICY.json), then send what it did not trust to people"
        )
    return picked, counts


def _pairs(body: dict[str, Any], picked: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    wanted = {}
    for rid, r in picked.items():
        models = r.get("models") or {}
        key = (str(r.get("prompt_id") or rid), frozenset((models.get("a"), models.get("b"))))
        wanted[key] = (rid, models.get("a"))
    items = []
    for item in body["items"]:
        prompt = item["id"].rsplit(":", 1)[0] if ":" in item["id"] else item["id"]
        hit = wanted.pop((prompt, frozenset((item["a"]["model"], item["b"]["model"]))), None)
        if hit is None:
            continue
        rid, first = hit
        a, b = (item["a"], item["b"]) if item["a"]["model"] == first else (item["b"], item["a"])
        item = {**item, "id": rid, "a": a, "b": b}
        item.pop("judge", None)  # the source's judge orientation no longer holds
        items.append(item)
    return items


def _ratings(body: dict[str, Any], picked: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    by_prompt = Counter(item["id"].rsplit(":", 1)[0] for item in body["items"])
    left, items = set(picked), []
    for item in body["items"]:
        prompt = item["id"].rsplit(":", 1)[0]
        rid = item["id"] if item["id"] in left else prompt if by_prompt[prompt] == 1 else None
        if rid in left:
            items.append({**item, "id": rid})
            left.discard(rid)
    return items


def abstained_for_campaign(body: dict[str, Any], results: Path) -> tuple[dict[str, Any], str]:
    """The campaign body with only the items no judge trusted, and one line saying what was
    kept and left out. A :class:`TrustError` when nothing can be sent."""
    kind, criterion = body["kind"], body["criterion"]
    if kind == "ranking":
        raise TrustError("--from-abstained works with --kind pairwise or rating (a policy "
                         "trusts a comparison's winner or a rating, not a ranking)")  # fmt: skip
    lines = [unwrap(x) for x in read_results(results)]
    picked, counts = _untrusted(lines, kind, criterion)
    what = "comparisons" if kind == "pairwise" else "ratings"
    if not picked:
        raise TrustError(
            f"{results}: no untrusted {what} of criterion {criterion!r} (untrusted decisions: "
            f"{dict(counts) or 'none'}); nothing to send to people"
        )
    items = (_pairs if kind == "pairwise" else _ratings)(body, picked)
    if not items:
        example = next(iter(picked))
        raise TrustError(
            f"{results}: the untrusted {what} (e.g. {example!r}) name none of the source's "
            "items; pairs match on prompt id and the two models, ratings on the submission id "
            "(the source's PROMPT:MODEL, or PROMPT)"
        )
    note = f"{len(items)} of {len(picked)} untrusted {criterion} {what} sent to people"
    if len(items) < len(picked):
        note += f" ({len(picked) - len(items)} not in the source)"
    if counts["verdict"]:
        note += (
            f"; {counts['verdict']} untrusted checklist verdicts left out (a campaign has no "
            "yes/no task: label them as plain rows for `judge trust merge`)"
        )
    return dict(body, items=items), note
