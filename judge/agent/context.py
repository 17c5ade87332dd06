"""Per-request context handed to every node through LangGraph's runtime.

It holds what the nodes read but never write: the vetted submission, decoded images,
settings, the skill registry, the shared gateway and this request's usage meter.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PIL import Image

from judge.agent.exemplars import ExemplarProvider
from judge.calibration import Calibration
from judge.config import JudgeSettings
from judge.domain.submission import Submission
from judge.llm.gateway import LLMGateway
from judge.llm.usage import UsageMeter
from skills.kinds import Skill
from skills.registry import SkillRegistry
from skills.types import (
    CheckSpec,
    Exemplar,
    ImagePayload,
    MemoryContext,
    ModelCallError,
    ModelClient,
    SkillInput,
)

LOCAL_MODEL = "local"


class NoModelClient:
    """The local backend's client: there is no model to call."""

    model = LOCAL_MODEL

    async def structured(self, messages: list[dict], schema: type, *, tag: str):
        raise ModelCallError("the local backend has no judge model; set JUDGE_MODEL")


@dataclass
class RunContext:
    """Everything a node needs for one submission."""

    submission: Submission
    settings: JudgeSettings
    registry: SkillRegistry
    gateway: LLMGateway
    images: list[ImagePayload] = field(default_factory=list)
    target_image: ImagePayload | None = None
    pil_images: list[Image.Image] = field(default_factory=list)
    exemplars: ExemplarProvider | None = None
    calibration: Calibration | None = None
    meter: UsageMeter = field(default_factory=UsageMeter)

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

    def checks_for(self, modality: str, ids: tuple[str, ...]) -> tuple[CheckSpec, ...]:
        """The checkpoint texts of one modality, in checklist order."""
        wanted = set(ids)
        out = []
        for cp in self.submission.task.checklist:
            text = cp.prompt_check if modality == "prompt" else cp.image_check
            if cp.id in wanted and text:
                out.append(CheckSpec(id=cp.id, primitive=cp.primitive.value, text=text))
        return tuple(out)

    def skill_input(
        self,
        *,
        modality: str,
        image: int | None = None,
        checks: tuple[str, ...] = (),
        exemplars: tuple[Exemplar, ...] = (),
        memory: MemoryContext | None = None,
        memory_name: str | None = None,
    ) -> SkillInput:
        """Build the input one skill invocation sees."""
        task = self.submission.task
        return SkillInput(
            task_id=task.id,
            category=task.category.value,
            brief=task.brief,
            prompt=self.submission.prompt,
            image=self.images[image] if image is not None else None,
            target_image=self.target_image,
            checks=self.checks_for(modality, checks),
            exemplars=exemplars,
            memory=memory,
            memory_name=memory_name,
        )
