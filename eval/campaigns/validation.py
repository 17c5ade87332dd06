"""Validation tasks with an obvious answer, built from a campaign's own items.

* pairwise, preference or coherence: an item's image against a visibly broken copy of it
  (tiles shuffled and noised) or a blank grey card — the intact image is the answer;
* pairwise, alignment: the prompt with its own image against the image of an item with a
  different prompt — its own image is the answer (a broken copy when all prompts are equal);
* rating: a blank or broken card — the answer is 1 or 2 (every scale puts an empty or
  wrecked image at its bottom);
* ranking: one output replaced by a blank card — the answer ranks it last.

Admin-marked items (``expected`` on an item) are validation tasks too. A rule is stored with
the item: ``{"answer": "a"}``, ``{"range": [lo, hi]}``, ``{"last": model}`` or
``{"order": [models]}``; :func:`passes` checks an answer against it.

Example:
    >>> passes({"answer": "a"}, {"choice": "a"}), passes({"range": [1, 2]}, {"rating": 4})
    (True, False)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from PIL import Image, ImageFilter

BLANK_MODEL = "__blank__"
Store = Callable[[Image.Image], str]  # an image -> its stored key


def blank_card(size: tuple[int, int]) -> Image.Image:
    """A uniform grey image of ``size``."""
    return Image.new("RGB", size, (128, 128, 128))


def broken_copy(img: Image.Image, seed: int) -> Image.Image:
    """``img`` cut into 6x6 tiles, shuffled, blurred and sprinkled with noise."""
    rng = random.Random(seed)
    small = img.convert("RGB").resize((min(img.width, 384), min(img.height, 384)))
    w, h = small.size
    tw, th = max(1, w // 6), max(1, h // 6)
    tiles = [
        small.crop((x, y, x + tw, y + th))
        for y in range(0, th * 6, th)
        for x in range(0, tw * 6, tw)
    ]
    rng.shuffle(tiles)
    out = Image.new("RGB", (tw * 6, th * 6))
    for n, tile in enumerate(tiles):
        out.paste(tile.rotate(90 * rng.randrange(4)), ((n % 6) * tw, (n // 6) * th))
    noise = Image.effect_noise(out.size, 90).convert("RGB")
    return Image.blend(out.filter(ImageFilter.GaussianBlur(3)), noise, 0.45)


def passes(rule: dict[str, Any], answer: dict[str, Any]) -> bool:
    """Whether an answer (``choice``/``rating``/``order`` as models) meets a rule."""
    if "answer" in rule:
        return answer.get("choice") == rule["answer"]
    if "range" in rule:
        lo, hi = rule["range"]
        return answer.get("rating") is not None and lo <= answer["rating"] <= hi
    order = answer.get("order") or []
    if "last" in rule:
        return bool(order) and order[-1] == rule["last"]
    return order == rule.get("order")


def admin_rule(kind: str, expected: Any) -> dict[str, Any]:
    """The rule of an admin-marked item."""
    if kind == "pairwise":
        return {"answer": expected}
    if kind == "rating":
        return {"range": [float(expected[0]), float(expected[1])]}
    return {"order": [str(m) for m in expected]}


def auto_items(
    kind: str,
    criterion: str,
    items: list[dict[str, Any]],
    decoded: Callable[[str], Image.Image],
    store: Store,
    *,
    count: int,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Up to ``count`` validation items made from ``items`` (stored form: images are keys).

    ``decoded(key)`` gives an image by its key, ``store(image)`` keeps a new one (in the same
    stored form as every item image) and returns its key.
    """
    rng = random.Random(seed)
    pool = [i for i in items if not i.get("validation")]
    rng.shuffle(pool)
    out: list[dict[str, Any]] = []
    for n, item in enumerate(pool[:count]):
        vid = f"~val-{n + 1:03d}"  # "~" never occurs in an admin item id
        broken = n % 2 == 0

        def spoiled(key: str, n: int = n, broken: bool = broken) -> str:
            img = decoded(key)
            spoilt = broken_copy(img, seed + n) if broken else blank_card(img.size)
            return store(spoilt)

        if kind == "pairwise":
            good = item["a"]
            other = None
            if criterion == "alignment":
                other = next(
                    (o for o in pool if o.get("prompt") and o.get("prompt") != item.get("prompt")),
                    None,
                )
            bad_key = other["a"]["image"] if other else spoiled(good["image"])
            sides = [
                {"model": good["model"], "image": good["image"]},
                {"model": BLANK_MODEL, "image": bad_key},
            ]
            if rng.random() < 0.5:
                sides.reverse()
            answer = "a" if sides[0]["model"] != BLANK_MODEL else "b"
            out.append(
                {
                    "id": vid,
                    "prompt": item.get("prompt"),
                    "a": sides[0],
                    "b": sides[1],
                    "validation": {"answer": answer},
                }
            )
        elif kind == "rating":
            out.append(
                {
                    "id": vid,
                    "prompt": item.get("prompt"),
                    "image": spoiled(item["image"]),
                    "source_image": item.get("source_image"),
                    "instruction": item.get("instruction"),
                    "model": BLANK_MODEL,
                    "validation": {"range": [1.0, 2.0]},
                }
            )
        else:
            outputs = [dict(o) for o in item["outputs"]]
            victim = rng.randrange(len(outputs))
            outputs[victim] = {"model": BLANK_MODEL, "image": spoiled(outputs[victim]["image"])}
            out.append(
                {
                    "id": vid,
                    "prompt": item.get("prompt"),
                    "outputs": outputs,
                    "validation": {"last": BLANK_MODEL},
                }
            )
    return out
