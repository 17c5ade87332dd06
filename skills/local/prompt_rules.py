"""Prompt-side checkpoints that can be decided from the prompt text alone, soundly.

- exact text: every quoted string (or any, for "… or …") appears in the prompt;
- counts (``quantity`` checkpoints): the number the checkpoint puts before a noun
  ("four panels", "3 cats") is put before the same noun in the prompt;
- colours (``attribute_binding`` checkpoints): the single colour the checkpoint names
  stands near one of its nouns.
Anything else (or anything ambiguous) is left undecided (None) with the reason.

Example:
    >>> decide_prompt("The prompt asks for exactly four panels.", "4 panels in a row",
    ...               "quantity")[0]
    True
    >>> decide_prompt("The prompt makes the alarm clock red.", "a blue alarm clock",
    ...               "attribute_binding")[0]
    False
    >>> decide_prompt("The prompt describes panel 1 with the hero asleep.", "...",
    ...               "spatial_relation")[0] is None
    True
"""

from __future__ import annotations

from skills.local.textmatch import contains_fuzzy, normalise, quoted

_WORDS = "zero one two three four five six seven eight nine ten eleven twelve"
NUMBERS = {w: i for i, w in enumerate(_WORDS.split())}
NUMBERS.update({"single": 1, "pair": 2, "couple": 2, "dozen": 12})
COLOURS = {
    "red",
    "orange",
    "yellow",
    "green",
    "blue",
    "purple",
    "violet",
    "pink",
    "brown",
    "black",
    "white",
    "gray",
    "grey",
    "gold",
    "golden",
    "silver",
    "teal",
    "turquoise",
    "magenta",
    "cyan",
    "beige",
    "crimson",
    "navy",
}
STOP = {
    "the",
    "a",
    "an",
    "prompt",
    "asks",
    "for",
    "specifies",
    "mentions",
    "describes",
    "makes",
    "gives",
    "states",
    "exactly",
    "of",
    "in",
    "and",
    "with",
    "is",
    "are",
    "as",
    "to",
    "that",
    "every",
    "all",
    "each",
    "one",
    "its",
    "or",
    "related",
    "terms",
    "has",
    "be",
    "being",
    "only",
    "not",
    "no",
    "equal",
    "size",
    "sized",
    "same",
}
MATCH = 0.9
WINDOW = 4


def _tokens(text: str) -> list[str]:
    return normalise(text).split()


def _number(tok: str) -> int | None:
    if tok.isdigit():
        return int(tok)
    return NUMBERS.get(tok)


def _stem(tok: str) -> str:
    return tok[:-1] if tok.endswith("s") and len(tok) > 3 else tok


def _near(tokens: list[str], i: int, words: set[str]) -> bool:
    lo, hi = max(0, i - WINDOW), min(len(tokens), i + WINDOW + 1)
    return any(_stem(t) in words for t in tokens[lo:hi])


def _counted(tokens: list[str]) -> list[tuple[int, str]]:
    """(number, noun) pairs where a number is followed within two words by a noun."""
    pairs = []
    for i, t in enumerate(tokens):
        n = _number(t)
        if n is None:
            continue
        for nxt in tokens[i + 1 : i + 3]:
            if nxt not in STOP and nxt not in COLOURS and _number(nxt) is None:
                pairs.append((n, _stem(nxt)))
                break
    return pairs


def decide_prompt(check: str, prompt: str, primitive: str = "") -> tuple[bool | None, str]:
    """(verdict or None, rationale/reason) for one prompt-side checkpoint."""
    quotes, mode = quoted(check)
    if quotes:
        scores = [contains_fuzzy(prompt, q) for q in quotes]
        hits = [s >= MATCH for s in scores]
        ok = any(hits) if mode == "any" else all(hits)
        shown = ", ".join(f"'{q}' ({s:.2f})" for q, s in zip(quotes, scores, strict=True))
        return ok, f"exact-text match in the prompt ({mode} of {shown}; threshold {MATCH})"
    ctoks = _tokens(check)
    nouns = {_stem(t) for t in ctoks if t not in STOP and t not in COLOURS and not _number(t)}
    ptoks = _tokens(prompt)
    wanted = _counted(ctoks)
    if primitive == "quantity" and len(wanted) == 1:
        want, noun = wanted[0]
        stated = [n for n, w in _counted(ptoks) if w == noun]
        if want in stated:
            return True, f"the prompt asks for {want} {noun}(s)"
        if stated:
            return False, f"the prompt asks for {stated[0]} {noun}(s), not {want}"
        return False, f"the prompt never states a count of {noun}(s)"
    colours = [t for t in ctoks if t in COLOURS]
    if primitive == "attribute_binding" and len(set(colours)) == 1 and nouns:
        colour = colours[0]
        places = [i for i, t in enumerate(ptoks) if t == colour]
        if any(_near(ptoks, i, nouns) for i in places):
            return True, f"the prompt puts '{colour}' next to the object it belongs to"
        if not places:
            return False, f"the prompt never names the colour '{colour}'"
        return None, f"'{colour}' appears in the prompt but not clearly bound to the object"
    return None, "not decidable from the prompt text alone"
