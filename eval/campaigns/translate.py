"""The optional translation of a task's prompt into the annotator's language, through the
configured model.

The prompt travels only inside a data block (:func:`skills.rendering.data_block`): the system
message (``prompts/translate.md``) says it is text to translate, never an instruction. The
answer is a :class:`Translation`; callers keep it once per prompt and language.

Example::

    text = await translate(client, "a red kite over a calm sea", "Deutsch")
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


@lru_cache(maxsize=1)
def _system() -> Template:
    return Template((PROMPTS / "translate.md").read_text(encoding="utf-8"))


def messages(prompt: str, language: str) -> list[dict[str, str]]:
    """The chat messages asking for ``prompt`` in ``language`` (its own name)."""
    return [
        {"role": "system", "content": _system().substitute(language=language).strip()},
        {"role": "user", "content": data_block("PROMPT", prompt)},
    ]


def prompt_key(prompt: str) -> str:
    """The cache key of a prompt (its text's SHA-256 prefix).

    >>> prompt_key("a kite")
    'facf5131ec5957f4'
    """
    return hashlib.sha256(prompt.encode()).hexdigest()[:16]


async def translate(client: Any, prompt: str, language: str) -> str:
    """``prompt`` in ``language``, by ``client`` (a gateway client with ``structured``)."""
    answer = await client.structured(messages(prompt, language), Translation, tag="translate")
    return answer.text.strip()
