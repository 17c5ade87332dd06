"""The skills' own environment (``JUDGE_*``): extra card folders, the local predictor's
switches, the local safety thresholds and the derived-data cache. The one reader of those
variables: the skills sit below the engine, so they keep a model of their own, read afresh at
each call (tests and ablations change them between calls).

Example:
    >>> import os; os.environ["JUDGE_NSFW_THRESHOLD"] = "not a number"
    >>> SkillSettings().nsfw_threshold  # an unreadable threshold keeps its default
    0.8
    >>> del os.environ["JUDGE_NSFW_THRESHOLD"]
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationInfo, field_validator
from pydantic_settings import SettingsConfigDict

from memory.config_env import ProjectSettings


class SkillSettings(ProjectSettings):
    """How skill cards are found and how the local backend's skills behave."""

    model_config = SettingsConfigDict(env_prefix="JUDGE_", extra="ignore")

    skill_dirs: str = Field(
        default="",
        description="more folders of skill cards for every judge, separated by ':' (the "
        "platform's path separator)",
    )
    local_selection: str | None = Field(
        default=None,
        description="local predictor: stack (default: non-negative weights over the members) "
        "or best (the single best candidate)",
    )
    local_members: str | None = Field(
        default=None,
        description="local predictor: comma-separated members to use (default: memory, "
        "prompt, quality, prototype, sibling; also brisque, niqe, camera)",
    )
    local_weights: str | None = Field(
        default=None,
        description="local predictor: equal (default) or agreement (exemplars whose raters "
        "disagreed pull the fits less)",
    )
    nsfw_threshold: float = Field(
        default=0.8,
        description="local image safety: Open-NSFW score flagged as sexual_content "
        "(unreadable: the default)",
    )
    profanity_threshold: float = Field(
        default=0.9,
        description="local prompt safety: profanity score flagged as harassment "
        "(unreadable: the default)",
    )
    cache_dir: str | None = Field(
        default=None, description="where derived data is cached (default: ~/.cache/t2i-judge)"
    )

    @field_validator("nsfw_threshold", "profanity_threshold", mode="before")
    @classmethod
    def _readable_or_default(cls, v: Any, info: ValidationInfo) -> Any:
        """As before these were settings: a value that is no number keeps the default."""
        try:
            return float(v)
        except (TypeError, ValueError):
            assert info.field_name is not None
            return cls.model_fields[info.field_name].default
