"""How the mock model (``mock/judge``) answers the probe's questions, so that a probe can be
seen working offline: made-up inputs about the topic, a review that keeps the inputs naming
the topic and writes their checks, child topics, and an edit instruction cut into its steps.
Registered with :func:`judge.llm.mock_material.shaper` under the answer schemas' names; none
of it means anything about any model.

Example:
    >>> from judge.llm.mock_material import Material, shaped
    >>> m = Material(system="Write exactly 2 prompts", blocks={"TOPIC": "cats"})
    >>> pick = lambda path, lo, hi: lo + sum(map(ord, path)) % (hi - lo + 1)
    >>> got = shaped("InputBatch", m, {"inputs": []}, pick)["inputs"]
    >>> len(got), all(text.endswith(", cats") for text in got)
    (2, True)
"""

from __future__ import annotations

import re
from typing import Any

from eval.probing.textutil import clip_words, words
from judge.llm.mock_material import Material, Pick, shaper

COLOURS = ("red", "green", "blue", "yellow", "white", "black", "orange", "purple")
THINGS = ("kettle", "lamp", "ladder", "bucket", "chair", "crate", "bicycle", "umbrella", "clock")
RELATIONS = ("beside", "under", "behind", "on top of", "inside", "in front of")
MATERIALS = ("wooden", "glass", "metal", "paper", "stone")
FACETS = ("counting", "colours", "spatial relations", "text on signs", "lighting", "textures",
          "small objects", "motion")  # fmt: skip
EDITS = ("Make the {thing} {colour}", "Remove the {thing}", "Add a {colour} {thing} {relation} "
         "the main object", "Write \"{word}\" on a sign next to the {thing}")  # fmt: skip
SIGN_WORDS = ("OPEN", "SALE", "EXIT", "HELLO")
_COUNT = re.compile(r"exactly (\d+)")
_STEP = re.compile(r"(?<=[.!?])\s+|\s+and\s+|;\s*")


def _count(material: Material, default: int = 1) -> int:
    found = _COUNT.search(material.system)
    return max(1, min(int(found.group(1)), 12)) if found else default


def _topic(material: Material) -> str:
    return clip_words(material.blocks.get("TOPIC", "anything"), 12)


def _scene(k: int, pick: Pick) -> str:
    colour = COLOURS[pick(f"colour{k}", 0, len(COLOURS) - 1)]
    first = THINGS[pick(f"thing{k}", 0, len(THINGS) - 1)]
    second = THINGS[(THINGS.index(first) + 1 + pick(f"other{k}", 0, len(THINGS) - 2)) % len(THINGS)]
    relation = RELATIONS[pick(f"relation{k}", 0, len(RELATIONS) - 1)]
    stuff = MATERIALS[pick(f"material{k}", 0, len(MATERIALS) - 1)]
    return f"A {colour} {first} {relation} a {stuff} {second}"


def _edit(k: int, pick: Pick) -> str:
    template = EDITS[pick(f"edit{k}", 0, len(EDITS) - 1)]
    return template.format(
        colour=COLOURS[pick(f"colour{k}", 0, len(COLOURS) - 1)],
        thing=THINGS[pick(f"thing{k}", 0, len(THINGS) - 1)],
        relation=RELATIONS[pick(f"relation{k}", 0, len(RELATIONS) - 1)],
        word=SIGN_WORDS[pick(f"word{k}", 0, len(SIGN_WORDS) - 1)],
    )


@shaper("InputBatch")
def inputs(material: Material, value: dict[str, Any], pick: Pick) -> dict[str, Any]:
    """``count`` different prompts (or edit instructions), each naming the topic."""
    editing = "image-editing" in material.system
    topic, out = _topic(material), []
    for k in range(4 * _count(material)):
        text = f"{_edit(k, pick) if editing else _scene(k, pick)}, {topic}"
        if text not in out:
            out.append(text)
        if len(out) == _count(material):
            break
    return {"inputs": out}


@shaper("ReviewBatch")
def review(material: Material, value: dict[str, Any], pick: Pick) -> dict[str, Any]:
    """Each listed candidate: relevant when it shares a word with the topic; its checks are
    its clauses."""
    topic = set(words(material.blocks.get("TOPIC", "")))
    results = []
    for line in material.blocks.get("CANDIDATES", "").splitlines():
        index, _, text = line.partition(": ")
        if not index.isdigit():
            continue
        relevant = bool(topic & set(words(text)))
        clauses = [c.strip(" .") for c in re.split(r",|\band\b", text) if c.strip(" .")]
        checks = [f"The image shows: {c}." for c in clauses][:6] if relevant else []
        results.append({"index": min(int(index), 60), "relevant": relevant, "checks": checks})
    return {"results": results}


@shaper("TopicBatch")
def topics(material: Material, value: dict[str, Any], pick: Pick) -> dict[str, Any]:
    """``count`` narrower topics: a facet of the topic each, all different."""
    topic, start = _topic(material), pick("facet", 0, len(FACETS) - 1)
    count = min(_count(material), len(FACETS))
    return {"topics": [f"{FACETS[(start + k) % len(FACETS)]} in {topic}" for k in range(count)]}


@shaper("EditSteps")
def edit_steps(material: Material, value: dict[str, Any], pick: Pick) -> dict[str, Any]:
    """The instruction's sentences and ``and``-joined clauses, each a step."""
    text = material.blocks.get("INSTRUCTION", "").strip()
    steps = [s.strip(" .,")[:80] for s in _STEP.split(text) if s.strip(" .,")]
    return {"steps": list(dict.fromkeys(steps))[:16] or [text[:80] or "edit the picture"]}
