"""Per-request context handed to every node through LangGraph's runtime.

It holds what the nodes read but never write: the mode and its vetted request, the decoded
image views, settings, the skill registry, the shared gateway and this request's meter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from PIL import Image

from judge.agent.exemplars import ExemplarProvider
from judge.calibration import Calibration
from judge.confidence.base import Method
from judge.config import JudgeSettings
from judge.llm.gateway import LLMGateway
from judge.llm.usage import UsageMeter
from judge.modes.base import Mode
from skills.kinds import Skill
from skills.registry import SkillRegistry
from skills.types import ImagePayload, ModelCallError, ModelClient

LOCAL_MODEL = "local"


class NoModelClient:
    """The local backend's client: there is no model to call."""

    model = LOCAL_MODEL

    async def structured(self, messages: list[dict], schema: type, *, tag: str):
        raise ModelCallError("the local backend has no judge model; set JUDGE_MODEL")


@dataclass
class RunContext:
    """Everything a node needs for one request."""

    mode: Mode
    request: Any
    settings: JudgeSettings
    registry: SkillRegistry
    gateway: LLMGateway
    views: dict[str, ImagePayload] = field(default_factory=dict)
    pil_views: Mapping[str, Image.Image] = field(default_factory=dict)
    exemplars: ExemplarProvider | None = None
    calibration: Calibration | None = None
    meter: UsageMeter = field(default_factory=UsageMeter)

    @property
    def submission(self) -> Any:
        """The request (named for the ``score`` mode, whose request is a Submission)."""
        return self.request

    @cached_property
    def request_id(self) -> str:
        """The request's id (its mode's ``id_field``: the caller's id or a content
        fingerprint), computed once per request: a fingerprint hashes the whole request,
        images included, and every work item's input carries it."""
        return str(getattr(self.request, self.mode.id_field))

    @cached_property
    def confidence(self) -> Method | None:
        """The confidence method the settings ask for (None: no estimate, no extra calls)."""
        if self.settings.confidence is None:
            return None
        from judge.confidence.registry import method_for
        from judge.confidence.spec import parse_method

        return method_for(parse_method(self.settings.confidence))

    @property
    def backend(self) -> str:
        """``llm`` or ``local``."""
        return self.settings.resolved_backend()

    @property
    def models(self) -> list[str]:
        """The judge model(s) for this request (``local`` for the local backend)."""
        return self.settings.models() if self.backend == "llm" else [LOCAL_MODEL]

    def client(self, model: str) -> ModelClient:
        """A model client that accounts into this request's meter."""
        if self.backend == "local":
            return NoModelClient()
        return self.gateway.client(model, self.meter, self.settings)

    def skill(self, name: str) -> Skill:
        """A card bound to this request's backend."""
        return self.registry.skill(name, self.backend)
