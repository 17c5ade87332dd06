"""``GET /v1/skills``: the skill cards the service knows."""

from __future__ import annotations

from fastapi import APIRouter

from api.core.deps import JudgeDep, KeyDep
from api.judging.models import SkillInfo

router = APIRouter(prefix="/v1", tags=["skills"])


@router.get("/skills", response_model=list[SkillInfo], summary="List skill cards")
async def list_skills(judge: JudgeDep, _key: KeyDep) -> list[SkillInfo]:
    """Every card (enabled or opt-in) with its kind, modality, categories and version."""
    return [
        SkillInfo(
            name=c.name,
            kind=c.kind,
            version=c.version,
            modality=c.modality,
            categories=c.categories,
            dimensions=c.dimension_names,
            memory=c.memory,
            enabled=c.enabled,
        )
        for c in judge.registry.cards(enabled_only=False)
    ]
