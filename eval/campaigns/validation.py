"""Validation tasks with an obvious answer, built from a campaign's own items.

* pairwise, preference or coherence: an item's image against a spoiled copy of it — the
  intact image is the answer;
* pairwise, alignment: the prompt with its own image against the image of an item with a
  different prompt (drawn per task) — its own image is the answer (a spoiled copy when all
  prompts are equal);
* rating: a spoiled image — the answer is 1 or 2 (every scale puts an empty or wrecked image
  at its bottom);
* ranking: one output replaced by a spoiled copy — the answer ranks it last.

The spoiling is drawn per item from :mod:`eval.campaigns.spoilers` (tiles scrambled, a
mosaic, a blur, noise, a blank card), so no single pixel rule tells every validation task;
the images are stored like every other (same encoding, secret keys). The intact images of a
validation task are copies (:func:`copy_of`), never a real task's bytes, and the service
shows every image under a URL of its own per task (:mod:`api.campaigns.aliases`): neither
the URL nor the bytes of an image tie a validation task to a real one.

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

import numpy as np
from PIL import Image

from eval.campaigns.disguise import disguised
from eval.campaigns.record import CampaignRecord, Rule, StoredItem, StoredOutput
from eval.campaigns.spoilers import SPOILERS, Spoiler, drawn

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


def copy_of(key: str, decoded: Callable[[str], Image.Image], store: Store, seed: int) -> str:
    """A stored copy of image ``key`` that looks the same and shares no byte with it: a few
    pixels (seeded) moved by a few levels, encoded again. A validation task never shows the
    bytes (nor, so, the key) of an image that a real task shows.

    >>> saved = {}
    >>> def store(img):
    ...     saved[str(len(saved))] = img
    ...     return str(len(saved) - 1)
    >>> saved["k"] = Image.new("RGB", (8, 8), (10, 200, 30))
    >>> k = copy_of("k", saved.__getitem__, store, 1)
    >>> k != "k", int(np.abs(np.asarray(saved[k], int) - (10, 200, 30)).max()) <= 12
    (True, True)
    """
    rng = np.random.default_rng(seed)
    pixels = np.asarray(decoded(key).convert("RGB"), dtype=np.int16)
    h, w, _ = pixels.shape
    got = key
    for spread in (4, 8, 12):  # JPEG may absorb a small change: widen it until bytes differ
        moved = pixels.copy()
        for _ in range(3):
            y, x = int(rng.integers(h)), int(rng.integers(w))
            moved[y, x] += rng.choice([-spread, spread], 3).astype(np.int16)
        got = store(Image.fromarray(np.clip(moved, 0, 255).astype(np.uint8), "RGB"))
        if got != key:
            return got
    return got


def auto_items(
    kind: str,
    criterion: str,
    items: list[StoredItem],
    decoded: Callable[[str], Image.Image],
    store: Store,
    *,
    count: int,
    seed: int = 0,
    encode: Callable[[Image.Image], bytes] | None = None,
) -> list[StoredItem]:
    """Up to ``count`` validation items made from ``items`` (stored form: images are keys).

    ``decoded(key)`` gives an image by its key, ``store(image)`` keeps a new one (in the same
    stored form as every item image) and returns its key; ``encode(image)`` is the stored
    bytes of an image (a spoiled image is disguised to store as large as the original).
    """
    rng = random.Random(seed)
    pool = [i for i in items if i.validation is None]
    rng.shuffle(pool)
    out: list[StoredItem] = []
    kinds = drawn(rng, min(count, len(pool)))
    for n, item in enumerate(pool[:count]):
        vid = f"~val-{n + 1:03d}"  # "~" never occurs in an admin item id
        source = kinds[n]
        how = SPOILERS[source]

        def spoiled(key: str, shown: str, n: int = n, how: Spoiler = how) -> str:
            """Image ``key`` spoiled, disguised as ``shown`` (the intact image beside it, or
            the original a real task shows) as stored."""
            ruined = how(decoded(key), seed * 1000 + n)
            return store(disguised(ruined, decoded(shown), seed * 1000 + n, encode))

        def copied(key: str, n: int = n) -> str:
            return copy_of(key, decoded, store, seed * 1000 + n)

        if kind == "pairwise":
            good = item.a
            assert good is not None
            other = None
            if criterion == "alignment":
                others = [o for o in pool if o.prompt and o.prompt != item.prompt and o.a]
                other = rng.choice(others) if others else None
            good_key = copied(good.image)
            if other and other.a:
                bad_key, source = copied(other.a.image), "other-prompt"
            else:
                bad_key = spoiled(good.image, good_key)
            sides = [
                StoredOutput(model=good.model, image=good_key),
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
                    image=spoiled(item.image, item.image),
                    source_image=copied(item.source_image) if item.source_image else None,
                    instruction=item.instruction,
                    model=BLANK_MODEL,
                    validation=Rule(range=[1.0, 2.0], source=source),
                )
            )
        else:
            outputs = [
                StoredOutput(model=o.model, image=copied(o.image)) for o in item.outputs or []
            ]
            victim = rng.randrange(len(outputs))
            original = (item.outputs or [])[victim].image
            outputs[victim] = StoredOutput(
                model=BLANK_MODEL, image=spoiled(original, outputs[victim].image)
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
