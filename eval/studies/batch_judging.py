"""``judge study run --provider-batch``: the study's judge calls through the provider's batch
API (see :mod:`judge.llm.batch`). Prompts and images are made and journaled as usual; a
judgment whose calls wait for a batch is not recorded (:class:`ItemWaiting`), and the next pass
(the same command again, or ``--wait``) judges it from the collected answers.

Example::

    call = BatchJudgeCall(settings, out / "provider-batch", poll_s=30)
    result = await call(submission, base_dir)      # or raises ItemWaiting
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval.studies.judging import InProcessJudge
from judge.config import JudgeSettings
from judge.llm.batch.deferral import ItemWaiting, ProviderBatch

__all__ = ["BatchJudgeCall", "ItemWaiting"]


class BatchJudgeCall(InProcessJudge):
    """The in-process judge with its gateway in provider-batch mode."""

    def __init__(
        self,
        settings: JudgeSettings,
        folder: Path,
        *,
        poll_s: float = 30.0,
        fallback: str = "batch",
    ):
        super().__init__(settings)
        self.pb = ProviderBatch(
            folder,
            self.judge.settings,
            poll_s=poll_s,
            fallback="direct" if fallback == "direct" else "batch",
        )
        self.pb.attach(self.judge.gateway)

    async def __call__(self, submission: dict[str, Any], base_dir: Path) -> dict[str, Any]:
        call = super().__call__
        return await self.pb.settle(lambda: call(submission, base_dir))
