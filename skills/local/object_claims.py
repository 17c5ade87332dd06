"""Reading an image check as a claim about COCO objects, or refusing to.

Every word of the check must be understood: a class word (``object_words.json``, plurals
derived), a colour word (``colour_words.json``), a count (digits or number words, with
``exactly``/``at least``/``at most``/``more than``/``fewer than``), a relation
(``left of``, ``right of``, ``above``, ``below``, ``on top of``, ``under``, ``next to``), a
negation, or a filler word ("the", "is", "visible", …; listed in the same file). Any
other word (``smiling``, ``panel``, ``hair``) means the check says something a detector
cannot see, and the check is not parsed. The claim's shape decides its kind: presence,
count, relation or colour.

Example:
    >>> parse("Exactly two cars are visible.").counts
    (('car', 'exact', 2),)
    >>> parse("The dog is to the left of the cat.").relation
    ('dog', 'left', 'cat')
    >>> parse("The character is smiling.") is None
    True
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from skills.local.colours import word_to_name

NUMBERS = {
    "zero": 0, "one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "pair": 2, "couple": 2,
}  # fmt: skip
QUALIFIERS = {
    "exactly": "exact", "only": "exact", "just": "exact", "precisely": "exact",
    "at least": "min", "at most": "max", "no more than": "max", "up to": "max",
    "more than": "more", "fewer than": "fewer", "less than": "fewer",
}  # fmt: skip
RELATIONS = {
    "to the left of": "left", "left of": "left", "on the left of": "left",
    "to the right of": "right", "right of": "right", "on the right of": "right",
    "above": "above", "over": "above", "on top of": "above", "atop": "above",
    "below": "below", "under": "below", "underneath": "below", "beneath": "below",
    "next to": "next", "beside": "next", "alongside": "next", "by the side of": "next",
}  # fmt: skip
NEGATIONS = {"no", "not", "none", "without", "absent", "nowhere", "neither", "nor"}


@dataclass(frozen=True)
class Claim:
    """A parsed check. Exactly one of ``present``, ``counts``, ``relation``, ``colour`` is set."""

    present: tuple[str, ...] = ()
    negated: bool = False
    counts: tuple[tuple[str, str, int], ...] = ()  # (class, exact|min|max, n)
    relation: tuple[str, str, str] | None = None  # (class A, left|right|above|below|next, B)
    colour: tuple[str, str] | None = None  # (class, colour name)


def _plurals(word: str) -> set[str]:
    head, _, last = word.rpartition(" ")
    pre = head + " " if head else ""
    if last.endswith(("s", "x", "ch", "sh")):
        forms = {last + "es"}
    elif last.endswith("y") and last[-2:-1] not in "aeiou":
        forms = {last[:-1] + "ies"}
    else:
        forms = {last + "s"}
    return {pre + f for f in forms}


@lru_cache(maxsize=1)
def _data() -> dict:
    return json.loads(Path(__file__).with_name("object_words.json").read_text())


@lru_cache(maxsize=1)
def class_words() -> dict[str, str]:
    """Every singular and plural class word → its COCO label."""
    data = _data()
    irregular = data["irregular_plurals"]
    out: dict[str, str] = {}
    for label, words in data["classes"].items():
        for w in words:
            out[w] = label
            last = w.rpartition(" ")[2]
            if last in irregular:
                out[w[: len(w) - len(last)] + irregular[last]] = label
            else:
                for p in _plurals(w):
                    out[p] = label
    return out


def _phrases() -> list[tuple[list[str], str, object]]:
    table: list[tuple[list[str], str, object]] = []
    table += [(k.split(), "rel", v) for k, v in RELATIONS.items()]
    table += [(k.split(), "qual", v) for k, v in QUALIFIERS.items()]
    table += [(k.split(), "class", v) for k, v in class_words().items()]
    table += [([k], "colour", v) for k, v in word_to_name().items()]
    return sorted(table, key=lambda t: -len(t[0]))


def tokens(text: str) -> list[tuple[str, object]] | None:
    """The check as ``(kind, value)`` tokens without fillers, or None if a word is unknown."""
    words = re.findall(r"[a-z0-9']+", text.lower().replace("’", "'"))
    table = _phrases()
    filler = set(_data()["filler"])
    out: list[tuple[str, object]] = []
    i = 0
    while i < len(words):
        for phrase, kind, value in table:
            if words[i : i + len(phrase)] == phrase:
                out.append((kind, value))
                i += len(phrase)
                break
        else:
            w = words[i]
            if w.isdigit():
                out.append(("num", int(w)))
            elif w in NUMBERS:
                out.append(("num", NUMBERS[w]))
            elif w in NEGATIONS or w.endswith("n't"):
                out.append(("neg", 0))
            elif w not in filler:
                return None
            i += 1
    return out


def parse(text: str) -> Claim | None:
    """The claim a check makes about COCO objects, or None when it says anything else."""
    toks = tokens(text)
    if not toks or not any(k == "class" for k, _ in toks):
        return None
    kinds = [k for k, _ in toks]
    if "rel" in kinds:
        return _relation(toks)
    if "colour" in kinds:
        return _colour(toks)
    if "num" in kinds or "qual" in kinds:
        return _counts(toks)
    return _presence(toks)


def _relation(toks: list[tuple[str, object]]) -> Claim | None:
    at = [i for i, (k, _) in enumerate(toks) if k == "rel"]
    if len(at) != 1:
        return None
    left, right = toks[: at[0]], toks[at[0] + 1 :]
    sides = []
    for part in (left, right):
        if [k for k, _ in part if k != "num"] != ["class"]:
            return None
        if any(v != 1 for k, v in part if k == "num"):
            return None
        sides.append(next(str(v) for k, v in part if k == "class"))
    return Claim(relation=(sides[0], str(toks[at[0]][1]), sides[1]))


def _colour(toks: list[tuple[str, object]]) -> Claim | None:
    kinds = [k for k, _ in toks if not (k == "num" and _ == 1)]
    if sorted(kinds) != ["class", "colour"]:
        return None
    cls = next(str(v) for k, v in toks if k == "class")
    return Claim(colour=(cls, next(str(v) for k, v in toks if k == "colour")))


def _counts(toks: list[tuple[str, object]]) -> Claim | None:
    counts: list[tuple[str, str, int]] = []
    mode, n = "exact", None
    for kind, value in toks:
        if kind == "qual":
            if n is not None:
                return None
            mode = str(value)
        elif kind == "num":
            if n is not None:
                return None
            n = int(value)  # type: ignore[call-overload]  # a numeric claim's value is a number
        elif kind == "class" and n is not None:
            if mode == "more":
                mode, n = "min", n + 1
            elif mode == "fewer":
                mode, n = "max", n - 1
            counts.append((str(value), mode, n))
            mode, n = "exact", None
        else:
            return None
    if n is not None or not counts or len({c for c, _, _ in counts}) != len(counts):
        return None
    return Claim(counts=tuple(counts))


def _presence(toks: list[tuple[str, object]]) -> Claim | None:
    negs = [i for i, (k, _) in enumerate(toks) if k == "neg"]
    classes = tuple(str(v) for k, v in toks if k == "class")
    if len(negs) > 1 or len(classes) + len(negs) != len(toks):
        return None
    if negs and len(classes) != 1:
        return None
    return Claim(present=classes, negated=bool(negs))
