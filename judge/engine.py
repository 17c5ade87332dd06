"""The one-line facade: ``Judge(model=...)`` runs any mode's request through the graph.

Example:
    >>> judge = Judge(model="openai/gpt-4o", api_base="http://127.0.0.1:9/v1")
    >>> judge.settings.model
    'openai/gpt-4o'

Then ``judge.score(submission_dict, base_dir=folder)`` (sync) or ``await judge.ascore(...)``
for a Submission (or any request carrying ``"mode"``), ``judge.compare(comparison)`` for a
pairwise comparison, and ``await judge.arun_request(data, mode="...")`` for any mode; a
caller that validated a request itself (the service) runs ``await judge.arun_checked(checked)``.
"""

from __future__ import annotations

import contextlib
import importlib
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from judge import event_loop
from judge.agent.context import RunContext
from judge.agent.exemplars import ExemplarProvider
from judge.agent.graph import compiled_graph
from judge.agent.state import JudgeState
from judge.calibration import load_calibration
from judge.confidence.attach import stamp
from judge.confidence.calls import open_confidence_usage
from judge.config import JudgeSettings, check_setting_names
from judge.domain.result import Result
from judge.domain.submission import Submission
from judge.errors import ConfigError
from judge.llm import warmup
from judge.llm.cache import ResponseCache
from judge.llm.gateway import Deferrer, LLMGateway, response_format
from judge.modes import get_mode, mode_of
from judge.modes.checked import CheckedRequest, check_request
from judge.prepare_pool import in_prepare_pool
from memory.store import MemoryStore
from skills.extras import check_installed
from skills.registry import SkillRegistry, default_registry
from skills.schemas import answer_schemas

#: modules LangGraph imports on its first run
GRAPH_IMPORTS = (
    "langchain_core.tracers.context",
    "langchain_core.tracers.run_collector",
    "langchain_core.tracers.stdout",
    # the aggregate node runs on the event loop: each mode's aggregation is imported here
    "judge.modes.score.aggregate",
    "judge.modes.compare.aggregate",
    "judge.modes.edit.aggregate",
    "judge.modes.edit_compare.aggregate",
)
NO_MODEL = (
    "no judge model configured: set JUDGE_MODEL (a litellm model string such as "
    "'openai/gpt-4o' or 'hosted_vllm/Qwen2-VL'), with JUDGE_API_BASE/JUDGE_API_KEY for "
    "your provider, or pass --model/--api-base"
)
LOCAL_FEATURE = "the local backend (judging with no model)"


def _prepare_engine(registry: SkillRegistry, llm: bool) -> None:
    """Compile the graph and import what its first run would (tracers, skill kinds); with a
    model, build each skill and the JSON schemas of the answers its cards ask for."""
    compiled_graph()
    for name in GRAPH_IMPORTS:
        importlib.import_module(name)
    if llm:
        for card in registry.cards(enabled_only=False):
            with contextlib.suppress(KeyError):  # a kind without an llm implementation
                registry.skill(card.name, "llm")
        for schema in answer_schemas(registry.cards(enabled_only=False)):
            response_format(schema)


class Judge:
    """Scores submissions; holds the process-wide gateway (cache, concurrency cap).

    ``deferrer`` (a :class:`judge.llm.batch.ProviderBatch`) sends every model call of this
    judge through the provider's batch API instead of calling it directly."""

    def __init__(
        self,
        settings: JudgeSettings | None = None,
        *,
        registry: SkillRegistry | None = None,
        cache: ResponseCache | bool | None = None,
        store: MemoryStore | None = None,
        deferrer: Deferrer | None = None,
        trust: Any = None,
        **overrides: Any,
    ):
        if isinstance(cache, bool):  # ``Judge(cache=False)`` means the setting, not a store
            overrides["cache"], cache = cache, None
        check_setting_names(overrides, "Judge()")
        base = settings or JudgeSettings()
        self.settings = base.merged(**overrides) if overrides else base
        self.registry = registry or default_registry(map(Path, self.settings.card_dirs))
        self.trust = None
        if trust is not None:  # a policy of another judge is refused here, before any call
            from judge.trust.policy import as_policy
            from judge.trust.run import stage_overrides

            self.trust = as_policy(trust)
            stage_overrides(self.settings, self.trust)
        self.gateway = LLMGateway(self.settings, cache=cache, deferrer=deferrer)
        self.store = store or MemoryStore(
            Path(self.settings.memory_dir) if self.settings.memory_dir else None
        )
        # cold start: provider imports, the graph compile and skill building run on a
        # background thread, never on the event loop of the first request
        llm = self.settings.resolved_backend() == "llm"
        if llm:
            warmup.start(self.settings.models())
        self._graph_ready = warmup.submit(lambda: _prepare_engine(self.registry, llm))

    def wait_warm(self, timeout_s: float | None = None) -> None:
        """Block until the engine's warm-up (graph, skills, the configured models' provider
        code) has finished; for readiness checks, run in a thread. Warm-up errors are not
        raised: warming is an optimisation."""
        futures = [self._graph_ready]
        if self.settings.resolved_backend() == "llm":
            futures += warmup.start(self.settings.models())
        for fut in futures:
            with contextlib.suppress(Exception):
                fut.result(timeout=timeout_s)

    async def warm(self, ctx: RunContext) -> None:
        """Wait, without blocking the loop, until the warm-up this run needs has finished."""
        await warmup.wait([self._graph_ready])
        if ctx.backend == "llm":
            await warmup.ready(ctx.models)

    def check(
        self, request: BaseModel | dict, *, mode: str | None = None, **overrides: Any
    ) -> CheckedRequest:
        """Validate a request of ``mode`` (default: its ``"mode"`` field, else ``score``) and
        merge ``overrides`` into the settings; raise ``InputError`` naming the field.

        Example::

            checked = judge.check(submission_dict, retrieval="none")
            result = await judge.arun_checked(checked)
        """
        m = get_mode(mode) if mode else mode_of(request)
        return check_request(m, m.parse(request), overrides, self.settings, self.registry)

    def prepare(
        self,
        request: BaseModel | dict,
        *,
        base_dir: Path | None = None,
        mode: str | None = None,
        **overrides: Any,
    ) -> RunContext:
        """Validate a request (:meth:`check`), then :meth:`prepare_checked` it. Blocking
        (image fetches and decoding): async callers run it in a thread."""
        return self.prepare_checked(self.check(request, mode=mode, **overrides), base_dir=base_dir)

    def prepare_checked(
        self, checked: CheckedRequest, *, base_dir: Path | None = None
    ) -> RunContext:
        """Load the images of an already checked request (never validated again) and build
        its run context; raise ``InputError`` for unreadable images and ``ConfigError`` when
        no model is configured. Blocking: async callers run it in a thread."""
        settings = checked.settings
        if settings.resolved_backend() == "llm" and not settings.models():
            raise ConfigError(NO_MODEL)
        if settings.resolved_backend() == "local":
            check_installed("local", LOCAL_FEATURE)
        m, req = checked.mode, checked.request
        views = m.load_views(req, settings, base_dir)
        ctx = RunContext(
            mode=m,
            request=req,
            settings=settings,
            registry=self.registry,
            gateway=self.gateway,
            views=views.payloads,
            pil_views=views.pil,
            exemplars=ExemplarProvider(self.store, settings),
            calibration=load_calibration(settings.calibration) if settings.calibration else None,
        )
        _ = ctx.request_id  # a content fingerprint hashes the images: here, off the event loop
        return ctx

    async def arun(self, ctx: RunContext) -> Any:
        """Run the graph on a prepared context; returns the mode's result model."""
        start = time.perf_counter()
        if ctx.settings.confidence is not None:
            open_confidence_usage(ctx.meter)
        start_state: JudgeState = {}
        state = await compiled_graph().ainvoke(
            start_state, context=ctx, config={"max_concurrency": ctx.settings.graph_concurrency}
        )
        result = state["result"]
        if ctx.settings.confidence is not None:
            stamp(result, ctx.settings.confidence)
        result.usage = result.usage.model_copy(
            update={**ctx.meter.snapshot(), "latency_s": round(time.perf_counter() - start, 4)}
        )
        return result

    async def arun_request(
        self,
        request: BaseModel | dict,
        *,
        mode: str | None = None,
        base_dir: Path | None = None,
        **overrides: Any,
    ) -> Any:
        """Judge one request of any mode (async), validating it first; returns that mode's
        result model. ``trust=`` (a policy file, its JSON or a ``TrustPolicy``; default the
        judge's own) judges it under a trust policy (docs/trust.md)."""
        trust = overrides.pop("trust", None) or self.trust
        if trust is not None:
            from judge.trust.policy import as_policy

            checked = self.check(request, mode=mode, **overrides)
            return await self.arun_checked(replace(checked, trust=as_policy(trust)),
                                           base_dir=base_dir)  # fmt: skip
        return await self._run_prepared(
            self.prepare, request, base_dir=base_dir, mode=mode, **overrides
        )

    async def arun_checked(self, checked: CheckedRequest, *, base_dir: Path | None = None) -> Any:
        """Judge a request the caller already checked (the service's one validation path);
        nothing is parsed or checked again. Returns that mode's result model.

        Example::

            result = await judge.arun_checked(judge.check(comparison, mode="compare"))
        """
        if checked.trust is not None:
            return await self._run_trusted(checked, base_dir)
        return await self._run_prepared(self.prepare_checked, checked, base_dir=base_dir)

    async def _run_trusted(self, checked: CheckedRequest, base_dir: Path | None) -> Any:
        """A checked request under its trust policy: each stage checked with the stage's
        judge, then run (:func:`judge.trust.run.cascade`)."""
        from judge.trust.run import cascade

        def run_stage(stage: dict[str, Any]) -> Any:
            overrides = {**checked.overrides, **stage}
            again = check_request(
                checked.mode, checked.request, overrides, self.settings, self.registry
            )
            again = replace(again, wrapper=checked.wrapper)  # faults named as the client wrote
            return self._run_prepared(self.prepare_checked, again, base_dir=base_dir)

        assert checked.trust is not None
        return await cascade(run_stage, checked.settings, checked.trust)

    async def _run_prepared(self, prepare: Any, *args: Any, **kwargs: Any) -> Any:
        ctx = await in_prepare_pool(self.settings.prepare_threads, prepare, *args, **kwargs)
        await self.warm(ctx)
        return await self.arun(ctx)

    async def ascore(
        self, submission: Submission | dict, *, base_dir: Path | None = None, **overrides: Any
    ) -> Result:
        """Score one submission (async). A dict with ``"mode"`` runs that mode."""
        return await self.arun_request(submission, base_dir=base_dir, **overrides)

    def score(
        self, submission: Submission | dict, *, base_dir: Path | None = None, **overrides: Any
    ) -> Result:
        """Score one submission (blocking)."""
        return event_loop.run(self.ascore(submission, base_dir=base_dir, **overrides))

    async def acompare(
        self, comparison: BaseModel | dict, *, base_dir: Path | None = None, **overrides: Any
    ) -> Any:
        """Judge one pairwise comparison (async); returns a ``ComparisonResult``."""
        return await self.arun_request(comparison, mode="compare", base_dir=base_dir, **overrides)

    def compare(
        self, comparison: BaseModel | dict, *, base_dir: Path | None = None, **overrides: Any
    ) -> Any:
        """Judge one pairwise comparison (blocking).

        Example::

            Judge(model="openai/gpt-4o").compare({"prompt": "a red fox", "a": {...}, "b": {...}})
        """
        return event_loop.run(self.acompare(comparison, base_dir=base_dir, **overrides))
