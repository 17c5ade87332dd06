"""The one way a workflow gets a judgment: a :class:`JudgeClient`.

Three implementations behind one interface — ``await client.score(submission, base_dir,
options)`` returns the typed result (docs/design.md#submission-and-result-mode-score): a
:class:`~judge.domain.result.Result`, or the result of the mode the submission names (an
``EditResult`` for ``"mode": "edit"``, a ``ComparisonResult`` for ``"mode": "compare"``); or it
raises :class:`JudgeCallError` with the reason. Readers use its attributes, or
:func:`judge.domain.rows.result_row` for a flat row; ``result.to_dict()`` is its JSON, the
same from either side (what a service answers, byte for byte):

- :class:`LocalJudge` — the engine in this process (one gateway and cache for the run);
- :class:`LocalJudge` with ``batch=ProviderBatch(...)`` — the same, its model calls sent through
  the provider's batch API; an item whose calls wait for a batch raises
  :class:`~judge.llm.batch.deferral.ItemWaiting` and is judged again on a later pass;
- :class:`ServiceJudge` — ``POST {url}/v1/score`` of a running service through
  :class:`judge.client.AsyncClient` (the one HTTP client: local images inlined as data URLs,
  ``JUDGE_SERVICE_KEY`` as bearer key, retries with backoff on 429/502/503/504).

Meta-evaluation, studies and probing all call it; :func:`make_client` picks one.

Example::

    client = make_client(settings)                                # in-process
    client = make_client(settings, url="http://127.0.0.1:8000")   # the service
    result = await client.score(submission, base_dir=folder, options={"retrieval": "none"})
    result.status, result.usage.llm_calls, result.to_dict()
    await client.aclose()
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypeVar

from pydantic import ValidationError

from judge.client import AsyncClient, ServiceError, inline_request, score_result
from judge.config import JudgeSettings
from judge.errors import InputError, JudgeError
from judge.llm.batch.deferral import ProviderBatch
from judge.modes.score.options import ScoreOptions

if TYPE_CHECKING:  # the result models are imported by the engine when it runs
    from judge.domain.result import Result
    from judge.modes.compare.result import ComparisonResult
    from judge.modes.edit.result import EditResult

Scored: TypeAlias = "Result | EditResult | ComparisonResult"
"""What :meth:`JudgeClient.score` returns: the result of the submission's mode."""

ResultT = TypeVar("ResultT", bound="Result | EditResult | ComparisonResult")


class JudgeCallError(RuntimeError):
    """A judgment that could not be made; the message is the reason recorded."""


def expect(result: Scored, kind: type[ResultT]) -> ResultT:
    """``result`` as the mode's result the caller submitted for; a :class:`JudgeCallError`
    (recorded like any failed judgment) when the judge answered in another mode.

    Example:
        >>> from judge.domain.result import Result
        >>> from judge.modes.edit.result import EditResult
        >>> expect(Result(submission_id="s", status="scored"), EditResult)
        Traceback (most recent call last):
        ...
        eval.kit.client.JudgeCallError: the judge answered in another mode: Result, not EditResult
    """
    if not isinstance(result, kind):
        raise JudgeCallError(
            f"the judge answered in another mode: {type(result).__name__}, not {kind.__name__}"
        )
    return result


class JudgeClient(Protocol):
    """Turns a submission (and per-call options) into its typed result (:data:`Scored`)."""

    async def score(
        self,
        submission: dict[str, Any],
        base_dir: Path | None = None,
        options: dict[str, Any] | None = None,
    ) -> Scored: ...  # pragma: no cover

    async def aclose(self) -> None: ...  # pragma: no cover


def make_client(
    settings: JudgeSettings | None = None,
    *,
    url: str | None = None,
    options: dict[str, Any] | None = None,
    batch: ProviderBatch | None = None,
) -> JudgeClient:
    """The service at ``url`` when given, else the engine in this process (through
    ``batch`` when given). ``options`` are defaults every call sends."""
    if url:
        if batch is not None:
            raise ValueError("provider batches apply to the in-process judge; drop the URL")
        return ServiceJudge(url, options=options)
    return LocalJudge(settings, options=options, batch=batch)


class LocalJudge:
    """:class:`judge.engine.Judge` in this process."""

    def __init__(
        self,
        settings: JudgeSettings | None = None,
        *,
        options: dict[str, Any] | None = None,
        batch: ProviderBatch | None = None,
        judge: Any = None,
    ):
        from judge.engine import Judge  # the engine's imports are paid only when used

        self.batch = batch
        self.judge = judge or Judge(settings, deferrer=batch)
        self.options = dict(options or {})

    async def score(
        self,
        submission: dict[str, Any],
        base_dir: Path | None = None,
        options: dict[str, Any] | None = None,
    ) -> Scored:
        extra = {**self.options, **(options or {})}

        async def call() -> Any:
            return await self.judge.ascore(submission, base_dir=base_dir, **extra)

        try:
            result = await (self.batch.settle(call) if self.batch is not None else call())
        except JudgeError as exc:
            raise JudgeCallError(str(exc)) from None
        return result

    async def aclose(self) -> None:
        """Nothing to release: the engine lives as long as the process."""


class ServiceJudge:
    """``POST {url}/v1/score`` through :class:`judge.client.AsyncClient` (local images
    inlined, retries with backoff on 429/502/503/504); only the options a service client may
    set (:class:`~judge.modes.score.options.ScoreOptions`) are sent."""

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None = None,
        options: dict[str, Any] | None = None,
        retries: int = 3,
        timeout_s: float = 600.0,
    ):
        self.url = url.rstrip("/")
        self.options = _allowed(options or {})
        self.retries = retries
        self.api_key = api_key
        self.timeout_s = timeout_s
        self._client: AsyncClient | None = None

    def body(
        self, submission: dict[str, Any], base_dir: Path | None, options: dict[str, Any]
    ) -> dict[str, Any]:
        """The request body: the submission with its images inlined, and the options."""
        return {
            "submission": inline_request(submission, base_dir),
            "options": {**self.options, **_allowed(options)},
        }

    async def score(
        self,
        submission: dict[str, Any],
        base_dir: Path | None = None,
        options: dict[str, Any] | None = None,
    ) -> Scored:
        try:
            body = await asyncio.to_thread(self.body, submission, base_dir, options or {})
        except InputError as exc:
            raise JudgeCallError(exc.message) from None
        if self._client is None:
            self._client = AsyncClient(
                self.url,
                self.api_key,
                retries=self.retries,
                max_backoff_s=8.0,
                timeout_s=self.timeout_s,
            )
        try:
            data = await self._client.score_json(body)
        except ServiceError as exc:
            raise JudgeCallError(str(exc)) from None
        try:
            return score_result(data)
        except ValidationError as exc:
            raise JudgeCallError(f"{self.url}/v1/score answered no Result: {exc}") from None

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _allowed(options: dict[str, Any]) -> dict[str, Any]:
    fields = set(ScoreOptions.model_fields)
    return {k: v for k, v in options.items() if k in fields}
