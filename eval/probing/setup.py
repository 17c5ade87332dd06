"""Wire a probe run: the judge, the LLM writer, the model under test and the stores.

Shared by ``judge probe`` and the service's ``/v1/probes``.

Example::

    ctx = build_context(params, judge, generator, spec, journal, images)
    tree = await run_probe(ctx)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from eval.kit.journal import StepStore
from eval.probing.context import ProbeContext, no_overrides
from eval.probing.labelling import Labeller
from eval.probing.params import ProbeParams
from eval.probing.storage import ImageSink
from eval.probing.tree import Override
from eval.probing.writer import ProbeWriter
from judge.engine import Judge
from judge.llm.usage import UsageMeter

NO_LLM = (
    "probing needs an LLM to write inputs and to judge: set JUDGE_MODEL (a litellm model "
    "string such as 'openai/gpt-4o') with JUDGE_API_BASE/JUDGE_API_KEY for your provider, or "
    "pass --model"
)


def writer_model(params: ProbeParams, judge: Judge) -> str:
    """The LLM that writes inputs and topics: ``params.model``, else the judge's model."""
    models = judge.settings.models()
    model = params.model or (models[0] if models else None)
    if not model or judge.settings.resolved_backend() != "llm":
        raise ValueError(NO_LLM)
    return model


def build_context(
    params: ProbeParams,
    judge: Judge,
    generator: Any,
    spec: Any,
    journal: StepStore,
    images: ImageSink,
    *,
    overrides: Callable[[], Awaitable[dict[str, Override]]] = no_overrides,
    progress: Callable[[str, int], None] = lambda stage, n: None,
) -> ProbeContext:
    """A :class:`ProbeContext` whose renderer is ``generator.generate(spec, ...)``
    (a :class:`eval.t2i.ImageGenerator` and a ``BackendSpec``)."""
    client = judge.gateway.client(writer_model(params, judge), UsageMeter())

    async def render(prompt: str, n: int) -> Any:
        return await generator.generate(spec, prompt, n, seed=params.seed)

    return ProbeContext(
        params=params,
        writer=ProbeWriter(client),
        render=render,
        labeller=Labeller(judge, pass_share=params.pass_share, criterion=params.criterion),
        journal=journal,
        images=images,
        overrides=overrides,
        progress=progress,
    )
