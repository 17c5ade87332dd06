"""The optional translation of what an annotator reads into their language, through the
configured model: a task's prompt (``what="prompt"``) and the card's question and scale
labels (``what="card"``).

The text travels only inside a data block (:func:`skills.rendering.data_block`, ``PROMPT``
or ``CARD``): the system message (``prompts/translate.md``, ``prompts/translate_card.md``)
says it is text to translate, never an instruction. The answer is a :class:`Translation`;
callers keep it once per text and language.

Example::

    text = await translate(client, "a red kite over a calm sea", "Deutsch")
    question = await translate(client, "Which image is better?", "Deutsch", what="card")
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from string import Template
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from skills.rendering import data_block

PROMPTS = Path(__file__).parent / "prompts"


class Translation(BaseModel):
    """The model's answer."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=8_000)


SYSTEMS = {"prompt": "translate.md", "card": "translate_card.md"}
"""The system message of each kind of text (files under ``prompts/``)."""


@lru_cache(maxsize=len(SYSTEMS))
def _system(what: str) -> Template:
    return Template((PROMPTS / SYSTEMS[what]).read_text(encoding="utf-8"))


def messages(prompt: str, language: str, what: str = "prompt") -> list[dict[str, str]]:
    """The chat messages asking for ``prompt`` (a text of kind ``what``, see
    :data:`SYSTEMS`) in ``language`` (its own name)."""
    return [
        {"role": "system", "content": _system(what).substitute(language=language).strip()},
        {"role": "user", "content": data_block(what.upper(), prompt)},
    ]


def prompt_key(prompt: str) -> str:
    """The cache key of a prompt (its text's SHA-256 prefix).

    >>> prompt_key("a kite")
    'facf5131ec5957f4'
    """
    return hashlib.sha256(prompt.encode()).hexdigest()[:16]


async def translate(client: Any, prompt: str, language: str, what: str = "prompt") -> str:
    """``prompt`` (a text of kind ``what``) in ``language``, by ``client`` (a gateway client
    with ``structured``)."""
    answer = await client.structured(messages(prompt, language, what), Translation, tag="translate")
    return answer.text.strip()
