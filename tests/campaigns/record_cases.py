"""Campaign bodies and answers whose stored and served JSON is pinned byte for byte in
``tests/campaigns/data/records/`` (captured from the code before the record was typed, by
:func:`capture`; ``tests/campaigns/test_record_bytes.py`` checks the code still writes them).

Image keys are HMACs under a secret drawn per campaign, and the stored JPEG bytes depend on
the machine's libjpeg: :func:`counted_keys` replaces the key with a counter so the pinned
bytes hold on any machine (the key function is not what is pinned; the record around it is).
"""

from __future__ import annotations

import contextlib
import itertools
import random
from collections.abc import Iterator
from typing import Any

from tests.campaigns.helpers import COLOURS, data_url, pairwise_body, png, ranking_body, rating_body


@contextlib.contextmanager
def counted_keys() -> Iterator[None]:
    """Image keys ``000…001``, ``000…002``… in the order images are stored."""
    from eval.campaigns import ingest

    count = itertools.count(1)
    keys: dict[bytes, str] = {}
    saved = ingest._Images._key

    def key(self: Any, stored: bytes) -> str:
        if stored not in keys:
            keys[stored] = f"{next(count):024x}"
        return keys[stored]

    ingest._Images._key = key  # type: ignore[method-assign]
    try:
        yield
    finally:
        ingest._Images._key = saved  # type: ignore[method-assign]


def bodies() -> dict[str, dict[str, Any]]:
    """One body per shape the record takes: every kind, gold items, judge answers, edits,
    the optional settings set and unset, text outside ASCII."""
    pref = pairwise_body("pin-pref", 5, votes_per_item=3, title="Préférence ✓", seed=7)
    pref["items"][0]["expected"] = "b"
    pref["items"][1]["judge"] = {"winner": "a"}
    pref["items"][2]["judge"] = {"winner": "tie"}
    pref["items"][3]["prompt"] = "ein Drache über dem Meer — 龍"
    align = pairwise_body("pin-align", 4, criterion="alignment")
    reference = {"age_band": {"18-24": 0.5, "65+": 0.5}}
    rate = rating_body("pin-rate", 4, translate_prompts=True, prompt_language="de",
                       demographics=True, compared="editors", demographics_reference=reference,
                       qc={"min_validation_accuracy": 0.7}, min_seconds=1,
                       lease_seconds=30)  # fmt: skip
    rate["items"][0]["expected"] = [1, 2]
    rate["items"][1]["judge"] = {"score": 4}
    rate["items"].append({"id": "plain", "prompt": "a still life",
                          "image": data_url(png(COLOURS[5], 9))})  # fmt: skip
    rank = ranking_body("pin-rank", 3, 3, validation="none", extra_votes=2)
    rank["items"][0]["expected"] = ["m2", "m0", "m1"]
    return {b["id"]: b for b in (pref, align, rate, rank)}


def attempts(items: list[dict[str, Any]], kind: str, seed: int = 1) -> list[dict[str, Any]]:
    """Answers of four annotators to every item (stored items as plain JSON), one of them
    careless, in the logged form the report and the exports read."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for who in ("a01", "a02", "a03", "bot"):
        for n, item in enumerate(items):
            entry: dict[str, Any] = {
                "task": f"t{n:016x}", "item": item["id"], "annotator": who,
                "at": f"2026-01-01T00:00:{n:02d}.000000Z", "validation": bool(item["validation"]),
                "reason": None, "lang": "en", "prompt_language": None,
                "seconds": 1.0 if who == "bot" else 3.0 + n, "accepted": True, "fast": False,
            }  # fmt: skip
            if kind == "pairwise":
                choice = rng.choice("ab") if who == "bot" else ("a" if n % 3 else "b")
                rule = item["validation"]
                if rule and who != "bot":
                    choice = rule.get("answer", choice)
                entry.update(choice=choice, shown_left=rng.choice("ab"))
            elif kind == "rating":
                entry["rating"] = rng.randint(1, 5) if who == "bot" else 1 + n % 5
            else:
                models = [o["model"] for o in item["outputs"]]
                entry["order"] = rng.sample(models, len(models)) if who == "bot" else models
            if item["validation"]:
                rule = item["validation"]
                entry["correct"] = who != "bot" or rng.random() < 0.3
                if "range" in rule and who != "bot":
                    entry["rating"] = int(rule["range"][0])
            out.append(entry)
    return out
