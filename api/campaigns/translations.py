"""What an annotator reads, in their language: a task's prompt and the card's question and
scale labels (anchors), each translated once per text and language by the configured model,
in the background, and kept in Redis (``judge:campaign:<id>:tr:<lang>``, hash text key →
text; card texts' keys start with ``c``).

Only into the campaign's languages (``translate_into``, default the label page's), each
text and language translated once (one in flight across processes: a Redis lock; never again
once stored), and at most ``translation_budget`` calls per campaign, failed ones included
(``judge:campaign:<id>:tr-spent``): a link asking for made-up languages costs nothing.

``next`` asks :meth:`Translations.localise` to put a task in the page's language: each text
with a stored translation (also remembered in the process) is replaced and its original
kept beside it (``prompt_original``, ``question_original``, ``anchors_original``); a text
without one is shown as written and its translation starts in the background (one per text
and language across processes: a Redis lock), so a later task shows it translated. A failed
translation is logged and tried again after the lock's minute. The model sees a text only
inside a data block (:mod:`eval.campaigns.translate`).

Example::

    await translations.localise(record, shown_task, "de")  # shown_task changed in place
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import redis.asyncio as aredis

from api.campaigns.i18n import languages
from api.campaigns.store import PREFIX
from eval.campaigns.record import CampaignRecord
from eval.campaigns.translate import prompt_key, translate
from judge.llm.usage import UsageMeter

log = logging.getLogger("judge.api")
LOCK_S = 60


def text_key(text: str, what: str) -> str:
    """The cache key of a text of kind ``what`` (a prompt keeps its plain key)."""
    return prompt_key(text) if what == "prompt" else "c" + prompt_key(text)


class Translations:
    """Translated texts of every campaign, for one service process."""

    def __init__(self, redis: aredis.Redis, judge: Any):
        self.redis = redis
        self.judge = judge
        self._known: dict[tuple[str, str, str], str] = {}
        self._running: set[asyncio.Task] = set()

    @staticmethod
    def source(record: CampaignRecord) -> str:
        return record.prompt_language or "en"

    @staticmethod
    def targets(record: CampaignRecord) -> list[str]:
        """The languages the campaign's texts may be translated into: its
        ``translate_into``, else the label page's languages."""
        return record.translate_into or [code for code, _ in languages()]

    def budget(self, record: CampaignRecord) -> int:
        """The most translation calls of the campaign: its ``translation_budget``, else two
        per text (distinct prompts, the question, the anchors) and target language."""
        if record.translation_budget is not None:
            return record.translation_budget
        texts = len({i.prompt for i in record.items if i.prompt}) + 1 + len(record.card.anchors)
        return 2 * texts * len(self.targets(record))

    async def _spend(self, record: CampaignRecord) -> bool:
        """Count one translation call against the campaign's budget (in Redis: every
        process counts on one counter); False, and nothing started, once it is spent."""
        spent = await self.redis.incr(f"{PREFIX}{record.id}:tr-spent")
        if spent <= self.budget(record):
            return True
        if spent == self.budget(record) + 1:
            log.warning("campaign %s: its %d translation calls are spent; texts not yet "
                        "translated stay as written", record.id, self.budget(record))  # fmt: skip
        return False

    async def localise(self, record: CampaignRecord, task: dict[str, Any], lang: str) -> None:
        """Put the public ``task`` in ``lang`` where translations exist (in place): its
        ``prompt``, ``question`` and ``anchors``, the originals kept; ``prompt_language``
        says which language the prompt is shown in (when the task has a prompt)."""
        source = self.source(record)
        translating = (
            record.translate_prompts and lang != source and lang in self.targets(record)
        )
        texts: list[tuple[str, str]] = []
        if translating:
            if task.get("prompt"):
                texts.append((task["prompt"], "prompt"))
            texts.append((task["question"], "card"))
            texts += [(v, "card") for v in (task.get("anchors") or {}).values()]
        got = await self._lookup(record, texts, lang) if texts else {}
        if task.get("prompt"):
            text = got.get(task["prompt"])
            if text is not None:
                task["prompt_original"], task["prompt"] = task["prompt"], text
            task["prompt_language"] = lang if text is not None else source
        question = got.get(task["question"])
        if question is not None:
            task["question_original"], task["question"] = task["question"], question
        anchors = task.get("anchors") or {}
        if any(v in got for v in anchors.values()):
            task["anchors_original"] = anchors
            task["anchors"] = {k: got.get(v, v) for k, v in anchors.items()}

    async def _lookup(
        self, record: CampaignRecord, texts: list[tuple[str, str]], lang: str
    ) -> dict[str, str]:
        """``{original: translation}`` of the ``(text, kind)`` pairs translated so far (one
        Redis read for those this process does not hold); the others start translating."""
        cid = record.id
        out: dict[str, str] = {}
        missing: list[tuple[str, str, str]] = []
        for text, what in texts:
            key = text_key(text, what)
            known = self._known.get((cid, lang, key))
            if known is not None:
                out[text] = known
            else:
                missing.append((text, what, key))
        if not missing:
            return out
        stored = await self.redis.hmget(f"{PREFIX}{cid}:tr:{lang}", [k for _, _, k in missing])
        for (text, what, key), raw in zip(missing, stored, strict=True):
            if raw is not None:
                out[text] = self._known[(cid, lang, key)] = raw.decode()
                continue
            lock = f"{PREFIX}{cid}:trlock:{lang}:{key}"
            if await self.redis.set(lock, b"1", nx=True, ex=LOCK_S) and await self._spend(record):
                task = asyncio.create_task(self._translate(cid, text, lang, key, what))
                self._running.add(task)
                task.add_done_callback(self._running.discard)
        return out

    async def _translate(self, cid: str, text: str, lang: str, key: str, what: str) -> None:
        name = dict(languages()).get(lang, lang)
        settings = self.judge.settings
        client = self.judge.gateway.client(settings.model, UsageMeter())
        try:
            done = await translate(client, text, name, what)
        except Exception as exc:  # a failed call leaves the original; tried again later
            log.warning("campaign %s: translating a %s text into %s failed: %s",
                        cid, what, lang, exc)  # fmt: skip
            return
        await self.redis.hset(f"{PREFIX}{cid}:tr:{lang}", key, done)
        self._known[(cid, lang, key)] = done
