"""Prompts in the annotator's language: translated once per prompt and language by the
configured model, in the background, and kept in Redis (``judge:campaign:<id>:tr:<lang>``,
hash prompt key → text).

``next`` asks :meth:`Translations.shown` for the prompt in the page's language: the stored
translation when there is one (also remembered in the process), else the original — and a
translation starts in the background (one per prompt and language across processes: a Redis
lock), so a later task with that prompt shows it translated. A failed translation is logged
and tried again after the lock's minute. The model sees the prompt only inside a data block
(:mod:`eval.campaigns.translate`).

Example::

    text, lang = await translations.shown(record, "Ein Drachen", "de")
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import redis.asyncio as aredis

from api.campaigns.i18n import languages
from api.campaigns.store import PREFIX
from eval.campaigns.translate import prompt_key, translate
from judge.llm.usage import UsageMeter

log = logging.getLogger("judge.api")
LOCK_S = 60


class Translations:
    """Translated prompts of every campaign, for one service process."""

    def __init__(self, redis: aredis.Redis, judge: Any):
        self.redis = redis
        self.judge = judge
        self._known: dict[tuple[str, str, str], str] = {}
        self._running: set[asyncio.Task] = set()

    async def shown(self, record: dict[str, Any], prompt: str, lang: str) -> tuple[str, str]:
        """``(text, language)`` of ``prompt`` as the annotator should see it now."""
        source = record.get("prompt_language") or "en"
        if not record.get("translate_prompts") or lang == source:
            return prompt, source
        cid, key = record["id"], prompt_key(prompt)
        text = self._known.get((cid, lang, key))
        if text is None:
            raw = await self.redis.hget(f"{PREFIX}{cid}:tr:{lang}", key)
            if raw is not None:
                text = self._known[(cid, lang, key)] = raw.decode()
        if text is not None:
            return text, lang
        lock = f"{PREFIX}{cid}:trlock:{lang}:{key}"
        if await self.redis.set(lock, b"1", nx=True, ex=LOCK_S):
            task = asyncio.create_task(self._translate(cid, prompt, lang, key))
            self._running.add(task)
            task.add_done_callback(self._running.discard)
        return prompt, source

    async def _translate(self, cid: str, prompt: str, lang: str, key: str) -> None:
        name = dict(languages()).get(lang, lang)
        settings = self.judge.settings
        client = self.judge.gateway.client(settings.model, UsageMeter())
        try:
            text = await translate(client, prompt, name)
        except Exception as exc:  # a failed call leaves the original; tried again later
            log.warning("campaign %s: translating a prompt into %s failed: %s", cid, lang, exc)
            return
        await self.redis.hset(f"{PREFIX}{cid}:tr:{lang}", key, text)
        self._known[(cid, lang, key)] = text
