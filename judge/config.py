"""Engine settings (pydantic-settings): environment ``JUDGE_*`` < explicit arguments.

Per-request options beat flags, flags beat the environment: build one with
``JudgeSettings(**overrides)`` or ``settings.merged(model=...)``.

Example:
    >>> s = JudgeSettings(model="openai/gpt-4o", checkpoint_batching="per_modality")
    >>> s.models()
    ['openai/gpt-4o']
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import Field, PrivateAttr, SecretStr, field_validator
from pydantic_settings import SettingsConfigDict

from judge.config_env import CommaList, ProjectSettings, read_below, renamed
from memory.paths import APP_DIR, USER_DIRS, data_home, user_data_dir
from memory.settings import DataSettings
from registry import did_you_mean

__all__ = ["APP_DIR", "USER_DIRS", "JudgeSettings", "data_home", "user_data_dir"]

Batching = Literal["per_checkpoint", "per_modality"]
Retrieval = Literal["similarity", "random", "fixed", "none"]
SelectionRule = Literal["objective_then_subjective", "subjective_then_objective", "first"]


def check_setting_names(names: Iterable[str], where: str) -> None:
    """Refuse a keyword that is no setting (a typo would otherwise be dropped silently and
    the judge run without it), naming the nearest setting.

    Example:
        >>> try:
        ...     check_setting_names(["modle"], "judge.score()")
        ... except TypeError as exc:
        ...     print(exc)  # doctest: +ELLIPSIS
        judge.score() got an unknown setting 'modle'; did you mean 'model'? (...)
    """
    known = JudgeSettings.model_fields
    for name in names:
        if name not in known:
            hint = did_you_mean(name, known)
            hint = f"{hint} " if hint else ""
            raise TypeError(
                f"{where} got an unknown setting {name!r}; {hint}"
                "(docs/configuration.md lists the settings: JUDGE_<NAME> in lower case)"
            )


class JudgeSettings(ProjectSettings):
    """Everything that changes how a submission is judged or how models are called."""

    model_config = SettingsConfigDict(env_prefix="JUDGE_", extra="ignore")
    _merged: dict[str, JudgeSettings] = PrivateAttr(default_factory=dict)

    backend: Literal["auto", "llm", "local"] = Field(
        default="auto", description="auto: the LLM backend when a model is set, else local"
    )
    model: str | None = Field(
        default=None, description="the judge model, as a litellm model string (openai/gpt-4o)"
    )
    api_base: str | None = Field(
        default=None, description="base URL of an OpenAI-compatible endpoint for the model"
    )
    api_key: SecretStr | None = Field(
        default=None, description="key for the model's provider (else the provider's own variable)"
    )
    panel: CommaList = Field(
        default_factory=list, description="several judge models (comma-separated): a panel"
    )

    timeout_s: float = Field(default=60.0, gt=0, description="one model call, at most")
    max_retries: int = Field(
        default=6, ge=0, le=20, description="retries of a model call after a provider fault"
    )
    max_reasks: int = Field(
        default=4, ge=0, le=10, description="asks again after an answer that is not valid JSON"
    )
    backoff_base_s: float = Field(
        default=0.5, ge=0, description="first wait between retries (doubles each time)"
    )
    backoff_max_s: float = Field(default=20.0, ge=0, description="longest wait between retries")
    llm_concurrency: int | None = Field(
        default=None,
        ge=1,
        le=1024,
        description="ceiling on model calls in flight per process and route; the limit below "
        "it adapts to the provider (judge.llm.adaptive); None: no ceiling but 1024",
    )
    llm_transport: Literal["auto", "litellm"] = Field(
        default="auto",
        description="auto: calls to an OpenAI-compatible JUDGE_API_BASE are sent as litellm "
        "builds them, by the judge's own HTTP client (judge.llm.direct); litellm: every call "
        "through litellm.acompletion",
    )
    graph_concurrency: int = Field(
        default=96, ge=1, le=4096, description="steps of one judgement's graph run at once"
    )
    prepare_threads: int = Field(
        default=1,
        ge=1,
        le=64,
        description="threads per process that validate requests and decode and encode their "
        "images (judge.prepare_pool)",
    )
    temperature: float = Field(default=0.0, ge=0, le=2, description="sampling temperature")
    max_tokens: int = Field(default=1024, ge=16, description="answer length cap per model call")
    cache: bool = Field(default=True, description="reuse the answers of identical model calls")

    skills: CommaList = Field(
        default_factory=list, description="subjective cards to run (default: enabled cards)"
    )
    card_dirs: CommaList = Field(
        default_factory=list,
        description="more folders of skill cards for this judge (besides JUDGE_SKILL_DIRS); "
        "meta-eval writes the cards of your own labels there",
    )
    memory_dir: str | None = Field(
        default_factory=lambda: DataSettings().memory_dir,
        description="exemplar store used alone; default: your store under data_home() layered "
        "over the shipped read-only memories",
        json_schema_extra=read_below("JUDGE_MEMORY_DIR", "memory.settings.DataSettings"),
    )
    retrieval: Retrieval = Field(
        default="similarity", description="how exemplars are picked from a memory"
    )
    retrieval_k: int = Field(default=3, ge=0, le=16, description="exemplars shown per call")
    exemplar_image_side: int = Field(
        default=512, ge=64, description="exemplar images are downscaled to this side (pixels)"
    )
    exclude_exemplars: dict[str, str] = Field(
        default_factory=dict,
        description="skip exemplars whose meta matches (e.g. {'prompt_id': 'p01'} for "
        "leave-one-prompt-out evaluation)",
    )
    memories: dict[str, str] = Field(
        default_factory=dict,
        description="card or dimension name -> the memory it reads instead of its own, e.g. "
        "{'avt_appeal': 'my-appeal'} (JSON in JUDGE_MEMORIES; per request: options.memories)",
    )
    calibration: str | None = Field(default=None, description="calibration JSON to apply")

    checkpoint_batching: Batching = Field(
        default="per_checkpoint",
        description="per_modality: one call checks every checklist item of a modality",
    )
    subjective_batching: Literal["per_dimension", "per_modality"] = Field(
        default="per_dimension",
        description="per_modality: one call scores every subjective dimension of a modality "
        "that shares a memory (as the reference design's skills do)",
    )
    speculative_safety: bool = Field(
        default=True,
        description="run the safety gate and the scoring work at once; false: the gate "
        "first, the work only when it passes",
    )
    safety: bool = Field(default=True, description="run the safety gate")
    safety_on_error: Literal["unknown", "block"] = Field(
        default="unknown",
        description="a safety filter that could not run: unknown (safety.passed null, status "
        "partial) or block (fail closed: status blocked)",
    )
    selection_rule: SelectionRule = Field(
        default="objective_then_subjective",
        description="how the best of several images is chosen",
    )
    edit_samples: int = Field(
        default=1, ge=1, le=10, description="edit mode: judge calls per criterion, averaged"
    )
    edit_success_threshold: float = Field(
        default=4.0, ge=1, le=5, description="edit mode: every criterion must reach this"
    )
    edit_dinov2: str | None = Field(
        default=None, description="edit mode: local DINOv2 folder for structure_distance"
    )
    compare_allow_tie: bool = Field(
        default=False,
        description="compare mode: let the judge answer 'tie' (else it must pick an image)",
    )
    confidence: str | None = Field(
        default=None,
        description="estimate each item's confidence: samples:K, swap, panel, logprobs or "
        "annotators:K (docs/confidence.md); unset: no estimate and no extra calls",
    )
    confidence_temperature: float = Field(
        default=1.0, gt=0, le=2, description="samples:K: the temperature of the K samples"
    )
    confidence_memory: str | None = Field(
        default=None,
        description="annotators:K: the exemplar memory whose human labels the simulated "
        "annotators are shown (default: the memory of the item's subjective card)",
    )
    confidence_shots: int = Field(
        default=3, ge=1, le=8, description="annotators:K: labelled examples per simulated annotator"
    )

    @field_validator("confidence")
    @classmethod
    def _known_method(cls, value: str | None) -> str | None:
        from judge.confidence.spec import normalized

        return normalized(value)

    image_max_bytes: int = Field(
        default=20 * 1024 * 1024,
        ge=1024,
        description="largest image accepted, in bytes (also the service's cap)",
        json_schema_extra=renamed("JUDGE_MAX_IMAGE_BYTES"),
    )
    image_max_pixels: int = Field(
        default=40_000_000,
        ge=1,
        description="largest decoded image accepted, in pixels (also the service's cap)",
        json_schema_extra=renamed("JUDGE_MAX_IMAGE_PIXELS"),
    )
    image_max_aspect: float = Field(
        default=20.0,
        ge=1,
        le=1_000_000,
        description="largest ratio of an image's long side to its short side, read from its "
        "header before decoding (a 1x40000000 strip costs seconds of CPU to decode)",
    )
    image_max_side: int = Field(default=1536, ge=64, description="downscale before sending")
    provider_image_size: bool = Field(
        default=True,
        description="send images at the size the judge model's provider documents scaling "
        "them to anyway (judge/io/provider_image_sizes.toml); false: as before",
    )
    image_as_sent: bool = Field(
        default=False,
        description="score mode with a model: send a plain PNG or JPEG the provider takes as "
        "it is without decoding and re-encoding it (docs/throughput.md); the model then sees "
        "the file's own image data (its metadata dropped), not the judge's JPEG of it",
    )
    allow_local_paths: bool = Field(default=True, description="off in the HTTP service")
    allow_remote_images: bool = Field(
        default=False,
        description="accept https image URLs (fetched with the checks of docs/security.md)",
    )
    remote_image_timeout_s: float = Field(
        default=10.0, gt=0, description="one remote image's download, at most"
    )

    @field_validator("model", "panel")
    @classmethod
    def _only_the_mock_is_mock(cls, value: str | list[str] | None) -> str | list[str] | None:
        """``mock/judge`` is the mock model; another ``mock/...`` name is refused."""
        from judge.llm.mock import refusal

        for name in [value] if isinstance(value, str) else value or []:
            if problem := refusal(name):
                raise ValueError(problem)
        return value

    def resolved_backend(self) -> str:
        """``llm`` or ``local``: ``auto`` picks the LLM backend when a model is configured."""
        if self.backend == "auto":
            return "llm" if self.models() else "local"
        return self.backend

    def models(self) -> list[str]:
        """The judge models: the panel when given, else the single model (may be empty)."""
        if self.panel:
            return list(self.panel)
        return [self.model] if self.model else []

    def merged(self, **overrides: Any) -> JudgeSettings:
        """A copy with the non-None overrides applied (request beats env).

        Building settings re-reads the environment (a few ms); a service applies the same few
        option sets to every request, so the result is remembered per set (treat settings as
        values: never change one in place)."""
        changes = {k: v for k, v in overrides.items() if v is not None}
        key = None  # a copy (model_copy) shares the memo: keyed by the instance too
        if "api_key" not in changes:
            key = f"{id(self)}:{json.dumps(changes, sort_keys=True, default=repr)}"
        hit = self._merged.get(key) if key is not None else None
        if hit is not None:
            return hit
        data = self.model_dump()
        data.update(changes)
        out = JudgeSettings.model_validate(data)
        if key is not None:
            if len(self._merged) >= 64:
                self._merged.clear()
            self._merged[key] = out
        return out

    def public_options(self) -> dict[str, str | int | float | bool | None]:
        """The options that change results, recorded in provenance (the confidence options
        only when a method is asked for, so results without one read as before)."""
        return {**self._result_options(), **self.confidence_options()}

    def confidence_options(self) -> dict[str, str | int | float | bool | None]:
        """The options that change a confidence estimate (none without a method).

        Example:
            >>> JudgeSettings(confidence="samples:4").confidence_options()
            {'confidence': 'samples:4', 'confidence_temperature': 1.0}
        """
        if self.confidence is None:
            return {}
        name = self.confidence.partition(":")[0]
        out: dict[str, str | int | float | bool | None] = {"confidence": self.confidence}
        if name == "samples":
            out["confidence_temperature"] = self.confidence_temperature
        if name == "annotators":
            out["confidence_memory"] = self.confidence_memory
            out["confidence_shots"] = self.confidence_shots
        return out

    def _result_options(self) -> dict[str, str | int | float | bool | None]:
        return {
            "backend": self.resolved_backend(),
            "checkpoint_batching": self.checkpoint_batching,
            "subjective_batching": self.subjective_batching,
            "selection_rule": self.selection_rule,
            "speculative_safety": self.speculative_safety,
            "safety": self.safety,
            "safety_on_error": self.safety_on_error,
            "temperature": self.temperature,
            "image_max_side": self.image_max_side,
            "provider_image_size": self.provider_image_size,
            "retrieval": self.retrieval,
            "retrieval_k": self.retrieval_k,
            "calibration": self.calibration,
            "compare_allow_tie": self.compare_allow_tie,
            "edit_samples": self.edit_samples,
            "edit_success_threshold": self.edit_success_threshold,
        }
