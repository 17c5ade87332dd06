"""The configuration reference: every settings model of the project, one section each, for
``docs/configuration.md`` (rendered by :mod:`judge.config_page`). Run after changing a settings
model::

    python -m api.configuration docs/configuration.md            # write the page
    python -m api.configuration docs/configuration.md --check    # exit 1 when it is stale
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from api.core.settings import ServiceSettings
from api.jobs.tuning import WorkerTuning
from api.probes.budget import ProbeBudget
from eval.t2i.settings import BackendsSettings
from judge.client_settings import ClientSettings
from judge.config import JudgeSettings
from judge.config_page import Section, variables
from memory.settings import DataSettings
from skills.settings import SkillSettings


class ServiceProcessSettings(BaseModel):
    """Every settings section a service process reads, one model each (``judge serve``, its
    inline workers, and ``judge worker``): built together when the process starts, so a bad
    variable stops it there with its name (``judge serve: JUDGE_WORKER_LEASE_S='abc': ...``)
    instead of failing later inside a worker.

    Example:
        >>> ServiceProcessSettings().worker.lease_s > 0
        True
    """

    model_config = ConfigDict(frozen=True)

    engine: JudgeSettings = Field(default_factory=JudgeSettings)
    service: ServiceSettings = Field(default_factory=ServiceSettings)
    worker: WorkerTuning = Field(default_factory=WorkerTuning)
    probes: ProbeBudget = Field(default_factory=ProbeBudget)
    backends: BackendsSettings = Field(default_factory=BackendsSettings)
    skills: SkillSettings = Field(default_factory=SkillSettings)
    data: DataSettings = Field(default_factory=DataSettings)


def reference_sections() -> list[Section]:
    """Every settings model of the project, for ``docs/configuration.md``: the service
    runs every process, so the list lives at the top of ``api`` (see :mod:`judge.config_page`).

    Example:
        >>> [s.model.__name__ for s in reference_sections()][:2]
        ['JudgeSettings', 'ServiceSettings']
    """

    serve, worker = "`judge serve`", "`judge worker`"
    return [
        Section("Engine", JudgeSettings, "every process that judges: the CLI, `judge.score` "
                f"and the rest of the Python API, {serve} and {worker}"),
        Section("Service", ServiceSettings, f"{serve} and {worker}",
                "`REDIS_URL` keeps its name without the prefix: it is Redis's usual variable."),
        Section("Batch workers", WorkerTuning, f"{worker} and the inline workers of {serve}"),
        Section("Probes on the service", ProbeBudget,
                f"{serve} (`/v1/probes`) and the probe jobs of {worker}"),
        Section("Image backends", BackendsSettings, f"`judge probe`, {serve} and {worker}"),
        Section("Skills", SkillSettings, "every process that loads skill cards or runs the "
                "local backend's skills"),
        Section("Data folders", DataSettings, "every process",
                "`JUDGE_MEMORY_DIR` and `JUDGE_DATA_DIR` are read here, where the stores live: "
                "the engine's `memory_dir` and the service's `data_dir` (above) default to "
                "them, and they default to folders under `JUDGE_HOME`."),
        Section("Service client", ClientSettings, "`judge.Client` and `judge.AsyncClient` in "
                "your own process",
                "`JUDGE_SERVICE_*` is the client's side: the key it sends is one of the "
                "service's `JUDGE_SERVE_API_KEYS`."),
    ]  # fmt: skip


READ_BY_NAME = ("JUDGE_ADMIN_KEY",)
"""``JUDGE_*`` variables read by name outside the settings models: the default of
``--admin-key-env`` (:mod:`eval.kit.admin`). The configuration page's last section lists them."""


def known_variables() -> frozenset[str]:
    """Every ``JUDGE_*`` name the project reads: each section's variables and old names, and
    :data:`READ_BY_NAME`. A ``judge`` command warns at start about any other
    (:mod:`judge.env_check`).

    Example:
        >>> {"JUDGE_MODEL", "JUDGE_SERVE_PORT", "JUDGE_PORT"} <= known_variables()
        True
    """
    return frozenset({name for name, _ in variables(reference_sections())} | set(READ_BY_NAME))


if __name__ == "__main__":
    import sys

    from api import configuration  # the importable module, not __main__: its names are shown
    from judge.config_page import main

    raise SystemExit(main(sys.argv[1:], configuration.reference_sections))
