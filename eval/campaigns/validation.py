"""Validation tasks with an obvious answer, built from a campaign's own items.

* pairwise, preference or coherence: an item's image against a spoiled copy of it — the
  intact image is the answer;
* pairwise, alignment: the prompt with its own image against the image of an item with a
  different prompt — its own image is the answer (a spoiled copy when all prompts are equal);
* rating: a spoiled image — the answer is 1 or 2 (every scale puts an empty or wrecked image
  at its bottom);
* ranking: one output replaced by a spoiled copy — the answer ranks it last.

The spoiling is drawn per item from :mod:`eval.campaigns.spoilers` (tiles scrambled, a
mosaic, a blur, noise, a blank card), so no single pixel rule tells every validation task;
the images are stored like every other (same encoding, secret keys).

Admin-marked items (``expected`` on an item) are validation tasks too. A rule is stored with
the item: ``{"answer": "a"}``, ``{"range": [lo, hi]}``, ``{"last": model}`` or
``{"order": [models]}``; :func:`passes` checks an answer against it.

Example:
    >>> passes(Rule(answer="a"), {"choice": "a"}), passes(Rule(range=[1, 2]), {"rating": 4})
    (True, False)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from PIL import Image

from eval.campaigns.record import CampaignRecord, Rule, StoredItem, StoredOutput
from eval.campaigns.spoilers import SPOILERS, Spoiler, draw

BLANK_MODEL = "__blank__"
Store = Callable[[Image.Image], str]  # an image -> its stored key


def passes(rule: Rule, answer: Mapping[str, Any]) -> bool:
    """Whether an answer (``choice``/``rating``/``order`` as models) meets a rule."""
    if rule.answer is not None:
        return answer.get("choice") == rule.answer
    if rule.range is not None:
        lo, hi = rule.range
        return answer.get("rating") is not None and lo <= answer["rating"] <= hi
    order = answer.get("order") or []
    if rule.last is not None:
        return bool(order) and order[-1] == rule.last
    return order == rule.order


def admin_rule(kind: str, expected: Any) -> Rule:
    """The rule of an admin-marked (``gold``) item."""
    if kind == "pairwise":
        return Rule(answer=expected, source="gold")
    if kind == "rating":
        return Rule(range=[float(expected[0]), float(expected[1])], source="gold")
    return Rule(order=[str(m) for m in expected], source="gold")


def by_source(
    record: CampaignRecord, attempts: Iterable[Mapping[str, Any]], flagged: set[str]
) -> dict[str, dict[str, Any]]:
    """Validation answers and accuracy per source of validation item (``gold`` for the
    admin's items, else the spoiling kind), for kept and for flagged annotators: which
    kinds of validation task tell careless answers apart.

    >>> rec = CampaignRecord(id="c", kind="pairwise", criterion="preference",
    ...     card={"question": "?"}, items=[{"id": "g", "validation": Rule(answer="a",
    ...     source="gold")}])
    >>> rows = [{"item": "g", "annotator": "x", "accepted": True, "validation": True,
    ...          "correct": True}]
    >>> by_source(rec, rows, set())["gold"]["kept"]
    {'answers': 1, 'accuracy': 1.0}
    """
    source = {i.id: i.validation.source for i in record.items if i.validation is not None}
    tally: dict[str, dict[str, list[int]]] = {}
    for a in attempts:
        if not (a.get("accepted") and a.get("validation")) or a["item"] not in source:
            continue
        group = "flagged" if a["annotator"] in flagged else "kept"
        counts = tally.setdefault(source[a["item"]], {"kept": [0, 0], "flagged": [0, 0]})[group]
        counts[0] += 1
        counts[1] += bool(a.get("correct"))
    return {
        name: {g: {"answers": n, "accuracy": round(r / n, 4) if n else None}
               for g, (n, r) in groups.items()}
        for name, groups in sorted(tally.items())
    }  # fmt: skip


def auto_items(
    kind: str,
    criterion: str,
    items: list[StoredItem],
    decoded: Callable[[str], Image.Image],
    store: Store,
    *,
    count: int,
    seed: int = 0,
) -> list[StoredItem]:
    """Up to ``count`` validation items made from ``items`` (stored form: images are keys).

    ``decoded(key)`` gives an image by its key, ``store(image)`` keeps a new one (in the same
    stored form as every item image) and returns its key.
    """
    rng = random.Random(seed)
    pool = [i for i in items if i.validation is None]
    rng.shuffle(pool)
    out: list[StoredItem] = []
    for n, item in enumerate(pool[:count]):
        vid = f"~val-{n + 1:03d}"  # "~" never occurs in an admin item id
        source = draw(rng)
        how = SPOILERS[source]

        def spoiled(key: str, n: int = n, how: Spoiler = how) -> str:
            return store(how(decoded(key), seed * 1000 + n))

        if kind == "pairwise":
            good = item.a
            assert good is not None
            other = None
            if criterion == "alignment":
                other = next((o for o in pool if o.prompt and o.prompt != item.prompt), None)
            bad_key = other.a.image if other and other.a else spoiled(good.image)
            if other:
                source = "other-prompt"
            sides = [
                StoredOutput(model=good.model, image=good.image),
                StoredOutput(model=BLANK_MODEL, image=bad_key),
            ]
            if rng.random() < 0.5:
                sides.reverse()
            answer = "a" if sides[0].model != BLANK_MODEL else "b"
            out.append(
                StoredItem(
                    id=vid,
                    prompt=item.prompt,
                    a=sides[0],
                    b=sides[1],
                    validation=Rule(answer=answer, source=source),
                )
            )
        elif kind == "rating":
            assert item.image is not None
            out.append(
                StoredItem(
                    id=vid,
                    prompt=item.prompt,
                    image=spoiled(item.image),
                    source_image=item.source_image,
                    instruction=item.instruction,
                    model=BLANK_MODEL,
                    validation=Rule(range=[1.0, 2.0], source=source),
                )
            )
        else:
            outputs = [StoredOutput(model=o.model, image=o.image) for o in item.outputs or []]
            victim = rng.randrange(len(outputs))
            outputs[victim] = StoredOutput(
                model=BLANK_MODEL, image=spoiled(outputs[victim].image)
            )
            out.append(
                StoredItem(
                    id=vid,
                    prompt=item.prompt,
                    outputs=outputs,
                    validation=Rule(last=BLANK_MODEL, source=source),
                )
            )
    return out
