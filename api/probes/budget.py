"""The server-side budget of ``/v1/probes``: API bounds on the options, a worst-case plan of
what a probe may spend, the limits it is checked against before it starts, and the meter that
enforces them while it runs.

Settings (environment, ``JUDGE_PROBE_*``):

- bounds on the options, below the CLI's: ``MAX_DEPTH`` (4), ``MAX_TOPICS`` (4),
  ``MAX_INPUTS`` (10), ``MAX_IMAGES`` (4), ``MAX_ROUNDS`` (3), ``MAX_SPLIT_TESTS`` (16);
- the budget of one probe: ``BUDGET_NODES`` (40), ``BUDGET_IMAGES`` (4000),
  ``BUDGET_MODEL_CALLS`` (4000), ``BUDGET_USD`` (10);
- prices: ``USD_PER_IMAGE``, ``USD_PER_MODEL_CALL`` (unset: the price map's); where neither
  knows a price, ``USD_PER_IMAGE_UNKNOWN`` (0.04) and ``USD_PER_MODEL_CALL_UNKNOWN`` (0.01)
  are counted, so the USD budget always applies;
- ``MAX_RUNNING_PER_KEY`` (2): probes one key may have running at once;
  ``MAX_STARTS_PER_KEY_PER_HOUR`` (20): probes one key may start in a clock hour;
- ``WRITER_MODEL``: the LLM that writes inputs (default: the judge's model).

Example:
    >>> from eval.probing.params import ProbeParams
    >>> plan = plan_probe(ProbeParams(topic="t", backend="b", localise=False), None, None)
    >>> plan.nodes, plan.images, plan.model_calls, plan.usd
    (13, 520, 351, None)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from annotated_types import Le
from pydantic import Field
from pydantic_settings import SettingsConfigDict

from eval.probing.params import ProbeParams
from judge.config_env import ProjectSettings

BOUNDED = ("depth", "topics", "inputs", "images", "rounds", "max_split_tests")
"""Options the service bounds more tightly than the CLI (``ProbeParams``)."""


def cli_ceiling(option: str) -> int:
    """The CLI's own upper bound of ``ProbeParams.<option>``: the service's bound on that
    option may be set lower, never higher (so the two cannot drift apart).

    Example:
        >>> cli_ceiling("depth")
        6
    """
    for rule in ProbeParams.model_fields[option].metadata:
        if isinstance(rule, Le) and isinstance(rule.le, int):
            return rule.le
    raise LookupError(f"ProbeParams.{option} has no upper bound")


class ProbeBudget(ProjectSettings):
    """Bounds and budget of probes started over the API (``JUDGE_PROBE_*``)."""

    model_config = SettingsConfigDict(env_prefix="JUDGE_PROBE_", extra="ignore")

    max_depth: int = Field(
        default=4, ge=1, le=cli_ceiling("depth"), description="largest depth a probe may ask for"
    )
    max_topics: int = Field(
        default=4, ge=1, le=cli_ceiling("topics"), description="largest topics a probe may ask for"
    )
    max_inputs: int = Field(
        default=10, ge=1, le=cli_ceiling("inputs"), description="largest inputs a probe may ask for"
    )
    max_images: int = Field(
        default=4, ge=1, le=cli_ceiling("images"), description="largest images a probe may ask for"
    )
    max_rounds: int = Field(
        default=3, ge=1, le=cli_ceiling("rounds"), description="largest rounds a probe may ask for"
    )
    max_split_tests: int = Field(
        default=16,
        ge=2,
        le=cli_ceiling("max_split_tests"),
        description="largest max_split_tests a probe may ask for",
    )
    budget_nodes: int = Field(default=40, ge=1, description="topic nodes one probe may plan")
    budget_images: int = Field(default=4000, ge=1, description="images one probe may plan")
    budget_model_calls: int = Field(
        default=4000, ge=1, description="model calls one probe may plan"
    )
    budget_usd: float = Field(
        default=10.0, gt=0, description="USD one probe may plan (checked where prices are known)"
    )
    usd_per_image: float | None = Field(
        default=None, ge=0, description="price of one image when the price map has none"
    )
    usd_per_model_call: float | None = Field(
        default=None, ge=0, description="price of one model call when the price map has none"
    )
    usd_per_image_unknown: float = Field(
        default=0.04,
        ge=0,
        description="estimate of one image's price when neither USD_PER_IMAGE nor the price "
        "map has one (so the USD budget is never skipped)",
    )
    usd_per_model_call_unknown: float = Field(
        default=0.01,
        ge=0,
        description="estimate of one model call's price when neither USD_PER_MODEL_CALL nor "
        "the price map has one",
    )
    max_running_per_key: int = Field(
        default=2, ge=1, description="probes one key may have running at once"
    )
    max_starts_per_key_per_hour: int = Field(
        default=20,
        ge=1,
        description="probes one key may start in a clock hour (cancelled ones count)",
    )
    writer_model: str | None = Field(
        default=None, description="the LLM that writes inputs (unset: the judge's model)"
    )
    timeout_s: int = Field(default=24 * 3600, ge=60, description="one probe job, at most")

    def bound(self, option: str) -> int:
        """The API's upper bound of a :data:`BOUNDED` option."""
        return int(getattr(self, f"max_{option}".replace("max_max_", "max_")))

    def limits(self) -> dict[str, float]:
        """The budget as ``{"nodes", "images", "model_calls", "usd"}``."""
        return {
            "nodes": self.budget_nodes,
            "images": self.budget_images,
            "model_calls": self.budget_model_calls,
            "usd": self.budget_usd,
        }


def out_of_bounds(params: ProbeParams, budget: ProbeBudget) -> tuple[str, str] | None:
    """``(option, message)`` for the first option above the API's bound, else None.

    Example:
        >>> out_of_bounds(ProbeParams(topic="t", backend="b", depth=6), ProbeBudget())[0]
        'depth'
    """
    for option in BOUNDED:
        value, limit = getattr(params, option), budget.bound(option)
        if value > limit:
            name = f"JUDGE_PROBE_{('max_' + option).replace('max_max_', 'max_').upper()}"
            return option, (
                f"{option}={value} is over this service's bound of {limit} ({name}); the CLI "
                "(`judge probe run`) takes larger probes on your own keys"
            )
    return None


@dataclass(frozen=True)
class Prices:
    """USD per image and per model call; None when unknown."""

    image: float | None
    model_call: float | None


@dataclass(frozen=True)
class Plan:
    """The worst case of one probe: every node grows, every input renders twice (a rejected
    candidate's render is wasted), every test is a bug and every localisation uses its whole
    split budget, the judge makes one model call per image."""

    nodes: int
    images: int
    model_calls: int
    usd: float | None

    def as_dict(self) -> dict[str, float | int | None]:
        return asdict(self)


def plan_probe(params: ProbeParams, image_price: float | None, call_price: float | None) -> Plan:
    """What ``params`` may spend at most (see :class:`Plan`)."""
    from eval.probing.generation import ATTEMPTS  # the writer's tries per generation round

    n, k = params.images, params.inputs
    nodes = params.node_count()
    splits = params.max_split_tests if params.localise else 0
    per_node_images = ATTEMPTS * k * n + k * splits * n
    per_node_writer = params.rounds * ATTEMPTS * 2 + 3 + (k if params.localise else 0)
    per_node_judge = k * n + k * splits * n
    images = nodes * per_node_images
    calls = nodes * (per_node_writer + per_node_judge)
    if params.baseline:  # the same number of inputs again, written at once, no localisation
        total_inputs = nodes * k
        images += ATTEMPTS * total_inputs * n
        calls += 2 * ATTEMPTS * -(-total_inputs // k) + total_inputs * n
    usd = None
    if image_price is not None and call_price is not None:
        usd = round(images * image_price + calls * call_price, 4)
    return Plan(nodes, images, calls, usd)


def over_budget(plan: Plan, budget: ProbeBudget) -> str | None:
    """Why ``plan`` does not fit the budget, or None.

    Example:
        >>> over_budget(Plan(50, 10, 10, None), ProbeBudget())
        'the probe plans 50 nodes, over the budget of 40 (JUDGE_PROBE_BUDGET_NODES)'
    """
    for what, planned, limit in (
        ("nodes", plan.nodes, budget.budget_nodes),
        ("images", plan.images, budget.budget_images),
        ("model calls", plan.model_calls, budget.budget_model_calls),
    ):
        if planned > limit:
            env = f"JUDGE_PROBE_BUDGET_{what.replace(' ', '_').upper()}"
            return f"the probe plans {planned} {what}, over the budget of {limit} ({env})"
    if plan.usd is not None and plan.usd > budget.budget_usd:
        return (
            f"the probe may cost ${plan.usd:.2f}, over the budget of ${budget.budget_usd:.2f} "
            "(JUDGE_PROBE_BUDGET_USD)"
        )
    return None
