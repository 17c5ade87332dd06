"""What the mock model reads of a request, and the answers that depend on it.

The mock (:mod:`judge.llm.mock`) builds every answer from the answer's JSON Schema. Two
things need the request's *material* as well:

- a **choice between FIRST and SECOND** (an enum holding ``first`` and ``second``): the mock
  prefers one of the request's last two images by a hash of its content and of the
  request's text, so asking again with the images swapped names the same image — except on
  a made-up share of pairs where it shows a position bias (``first`` in both orders) and,
  when ``tie`` is offered, a share it calls a tie in both orders;
- a question whose answer must follow its material (a review answering each listed
  candidate, steps cut from an instruction): a **shaper** registered under the answer
  schema's name (``response_format.json_schema.name``) rewrites the schema-built answer. The
  package that asks the question registers it (:func:`shaper`); the judge's own are in
  :mod:`judge.llm.mock_shapes`, the probe's in :mod:`eval.probing.mock_answers`.

Example:
    >>> m = Material.of([{"role": "user", "content": "<<<DATA TOPIC #ab12>>>\\ncats\\n"
    ...                                              "<<<END DATA TOPIC #ab12>>>"}])
    >>> m.blocks
    {'TOPIC': 'cats'}
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from registry import Registry

BIAS_SHARE = 15
"""Percent of pairs on which the mock answers ``first`` in both orders (a position bias)."""
TIE_SHARE = 10
"""Percent of pairs the mock calls a tie in both orders, when ``tie`` is offered."""
_BLOCK = re.compile(r"<<<DATA (.+?) #\w+>>>\n(.*?)\n<<<END DATA \1 #\w+>>>", re.S)

Pick = Callable[[str, int, int], int]
Shaper = Callable[["Material", dict[str, Any], Pick], dict[str, Any]]
_SHAPERS = Registry[Shaper]("mock answer shaper")


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


@dataclass(frozen=True)
class Material:
    """A request's system text, user text, data blocks (by label) and image URLs, in order."""

    system: str = ""
    text: str = ""
    blocks: dict[str, str] = field(default_factory=dict)
    images: tuple[str, ...] = ()

    @classmethod
    def of(cls, messages: list[dict]) -> Material:
        system: list[str] = []
        texts: list[str] = []
        images: list[str] = []
        for message in messages:
            content = message.get("content") if isinstance(message, dict) else None
            parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
            for part in parts if isinstance(parts, list) else []:
                if not isinstance(part, dict):
                    continue
                if part.get("type") == "image_url":
                    url = part.get("image_url")
                    images.append(str(url.get("url") if isinstance(url, dict) else url))
                elif isinstance(part.get("text"), str):
                    (system if message.get("role") == "system" else texts).append(part["text"])
        text = "\n".join(texts)
        blocks = {label: body for label, body in _BLOCK.findall(text)}
        return cls("\n".join(system), text, blocks, tuple(images))

    def positional(self, values: list[Any], path: str) -> Any | None:
        """The choice among ``values`` (holding ``first`` and ``second``) this request gets,
        the same image in either order; ``None`` without two images to choose between."""
        lowered = {str(v).lower(): v for v in values}
        if len(self.images) < 2 or not {"first", "second"} <= set(lowered):
            return None
        first, second = self.images[-2:]
        key = "|".join([self.system, self.text, *sorted((first, second)), path])
        roll = _digest(f"{key}|roll") % 100
        if roll < BIAS_SHARE:
            return lowered["first"]
        if ("tie" in lowered and roll < BIAS_SHARE + TIE_SHARE) or first == second:
            return lowered.get("tie", lowered["first"])
        prefer_first = _digest(f"{key}|{first}") >= _digest(f"{key}|{second}")
        return lowered["first" if prefer_first else "second"]


def shaper(name: str) -> Callable[[Shaper], Shaper]:
    """Register ``fn(material, answer, pick) -> answer`` for the answer schema ``name``;
    ``pick(path, low, high)`` is the mock's own deterministic pick for this request."""

    return _SHAPERS.register(name, replace=True)


def shaped(name: str, material: Material, value: Any, pick: Pick) -> Any:
    """``value`` rewritten by the shaper of ``name``, if any."""
    fn = _SHAPERS.get(name) if name in _SHAPERS else None
    if fn is None or not isinstance(value, dict):
        return value
    return fn(material, value, pick)
