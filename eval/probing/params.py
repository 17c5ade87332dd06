"""Probe parameters: the tree's shape, the bug threshold and the run's options.

Defaults follow the DyEval paper: n_t = 3 child topics per node, n_i = 5 inputs per node,
n_x = 4 images per input, d_max = 3 levels (1 + 3 + 9 = 13 nodes), extension threshold
ρ = 0 (every node grows children) and a bug = an input whose pass rate is below 0.75.

Example:
    >>> p = ProbeParams(topic="spatial relations", backend="builtin")
    >>> (p.depth, p.topics, p.inputs, p.images, p.threshold, p.bug_threshold)
    (3, 3, 5, 4, 0.0, 0.75)
    >>> p.node_count()
    13
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from eval.probing.criteria import DEFAULT_CRITERION, check_criterion

MAX_TOPIC_CHARS = 300
MAX_INPUT_WORDS = 77


class ProbeParams(BaseModel):
    """Everything that shapes one probe run: the API's JSON fields, and the options of
    ``judge probe run`` generated from them (:mod:`judge.cli.model_options`)."""

    model_config = ConfigDict(extra="forbid")

    topic: str = Field(description="root test topic (1-300 characters)")
    backend: str = Field(
        min_length=1,
        max_length=128,
        description="model under test: litellm image model, builtin/renderer, or a backend id "
        "of JUDGE_BACKENDS",
    )
    model: str | None = Field(
        default=None, description="LLM writing inputs and topics (default: the judge model)"
    )
    depth: int = Field(default=3, ge=1, le=6, description="levels of the tree, d_max")
    topics: int = Field(default=3, ge=1, le=8, description="child topics per node, n_t")
    inputs: int = Field(default=5, ge=1, le=20, description="inputs per node, n_i")
    images: int = Field(default=4, ge=1, le=8, description="images per input, n_x")
    threshold: float = Field(
        default=0.0, ge=0, le=1, description="ρ: a node grows children when its pass rate >= ρ"
    )
    bug_threshold: float = Field(
        default=0.75, gt=0, le=1, description="an input is a bug when its pass rate is below"
    )
    strategy: Literal["bfs", "dfs"] = Field(
        default="bfs", description="exploration order: breadth or depth first"
    )
    baseline: bool = Field(
        default=False, description="also run the non-adaptive baseline and compare"
    )
    rounds: int = Field(
        default=1, ge=1, le=5, description="generation rounds per node (each sees earlier results)"
    )
    localise: bool = Field(default=True, description="localise the failing part of each bug")
    max_split_tests: int = Field(
        default=12, ge=2, le=64, description="re-rendered sub-prompts per localisation, at most"
    )
    pass_share: float = Field(
        default=1.0,
        gt=0,
        le=1,
        description="an image passes when at least this share of its scored checks pass",
    )
    seed: int | None = Field(default=None, description="seed passed to the image backend")
    criterion: str = Field(
        default=DEFAULT_CRITERION,
        max_length=64,
        description="pass/fail criterion: alignment_defects (the input's checks plus 'no "
        "obvious defects') or alignment (the input's checks only); more in "
        "eval/probing/prompts/criteria.toml",
    )

    @field_validator("criterion")
    @classmethod
    def _criterion(cls, value: str) -> str:
        return check_criterion(value)

    @field_validator("topic")
    @classmethod
    def _topic(cls, value: str) -> str:
        text = " ".join(value.split())
        if not text:
            raise ValueError("the topic is empty; give a short test topic such as 'counting'")
        if len(text) > MAX_TOPIC_CHARS:
            raise ValueError(
                f"the topic has {len(text)} characters; keep it to {MAX_TOPIC_CHARS} "
                "(a topic names an area to test, the inputs are written for you)"
            )
        return text

    def node_count(self) -> int:
        """Nodes of a full tree: 1 + n_t + n_t^2 + ... over ``depth`` levels."""
        return sum(self.topics**level for level in range(self.depth))

    def per_round(self) -> list[int]:
        """How many inputs each generation round of a node asks for (they sum to ``inputs``)."""
        base, extra = divmod(self.inputs, self.rounds)
        sizes = [base + (1 if r < extra else 0) for r in range(self.rounds)]
        return [s for s in sizes if s > 0]
