"""Prompt-side checkpoints that can be decided from the prompt text alone, soundly.

- exact text: every quoted string (or any, for "… or …") appears in the prompt;
- counts (``quantity`` checkpoints): the number the checkpoint puts before a noun
  ("four panels", "3 cats") is put before the same noun in the prompt;
- colours (``attribute_binding`` checkpoints): the single colour the checkpoint names
  qualifies its noun in the prompt ("a red alarm clock", "the clock is red"); another colour
  on that noun makes it false.
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
LINKS = {"is", "are", "in", "coloured", "colored", "painted", "of"}


def _tokens(text: str) -> list[str]:
    return normalise(text).split()


def _number(tok: str) -> int | None:
    if tok.isdigit():
        return int(tok)
    return NUMBERS.get(tok)


def _stem(tok: str) -> str:
    return tok[:-1] if tok.endswith("s") and len(tok) > 3 else tok


def _counted(tokens: list[str]) -> list[tuple[int, str]]:
    """(number, noun) pairs where a number is followed within two words by a noun.

    A number that follows a noun is a label, not a count ("panel 1", "step 2").
    """
    pairs = []
    for i, t in enumerate(tokens):
        n = _number(t)
        if n is None:
            continue
        if i > 0 and tokens[i - 1] not in STOP and _number(tokens[i - 1]) is None:
            continue
        for nxt in tokens[i + 1 : i + 3]:
            if nxt not in STOP and nxt not in COLOURS and _number(nxt) is None:
                pairs.append((n, _stem(nxt)))
                break
    return pairs


def _bound_colours(tokens: list[str], nouns: set[str]) -> list[str]:
    """Colours that qualify one of ``nouns``: right before it ("red alarm clock", "red and
    white mug") or right after it with a linking word ("clock is red", "mug in blue")."""
    found = []
    for j, t in enumerate(tokens):
        if _stem(t) not in nouns:
            continue
        k = j - 1
        while k >= 0 and (
            tokens[k] in COLOURS
            or tokens[k] in ("and", "dark", "light", "bright")
            or _stem(tokens[k]) in nouns
        ):
            if tokens[k] in COLOURS:
                found.append(tokens[k])
            k -= 1
        after = tokens[j + 1 : j + 4]
        if after and after[0] in LINKS:
            found += [a for a in after[1:] if a in COLOURS][:1]
    return found


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
        bound = _bound_colours(ptoks, nouns)
        if colour in bound:
            return True, f"the prompt makes the object '{colour}'"
        if bound:
            return False, f"the prompt makes the object {bound[0]}, not {colour}"
        if colour not in ptoks:
            return False, f"the prompt never names the colour '{colour}'"
        return None, f"'{colour}' appears in the prompt but not clearly bound to the object"
    return None, "not decidable from the prompt text alone"
