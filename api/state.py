"""The whole service's state: :class:`api.core.state.CoreState` plus what the feature packages
keep for the life of the app (the probe backends and budget, the batch, campaign, study and
probe stores). One is built by ``create_app`` and completed by its lifespan; routes reach it with
the :data:`StateDep` dependency, helpers with :func:`state_of`.

Example::

    @router.get("/v1/studies/{study_id}")
    async def study_info(study_id: str, state: StateDep) -> StudyInfo:
        meta = await state.studies.meta(study_id)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Depends, Request

from api.campaigns.store import CampaignStore
from api.campaigns.translations import Translations
from api.core.state import CoreState, core_state
from api.jobs.store import BatchStore
from api.probes.budget import ProbeBudget
from api.probes.runner import BackendsError
from api.probes.store import ProbeStore
from api.studies.store import StudyStore


@dataclass(eq=False)
class ServiceState(CoreState):
    """Everything the service keeps between requests (see :mod:`api.core.state` for the
    core fields). ``backends`` is read from ``JUDGE_BACKENDS`` once, when the app is created
    (never on a request's event loop): the specs by id, or the error probes answer with."""

    backends: dict[str, Any] | BackendsError = field(default_factory=dict)
    probe_budget: ProbeBudget = field(default_factory=ProbeBudget)
    # built on the lifespan's Redis client (api.app.lifespan: connect_stores)
    batches: BatchStore = field(init=False, repr=False)
    campaigns: CampaignStore = field(init=False, repr=False)
    campaign_translations: Translations = field(init=False, repr=False)
    studies: StudyStore = field(init=False, repr=False)
    probes: ProbeStore = field(init=False, repr=False)

    def t2i_backends(self) -> dict[str, Any]:
        """The T2I backends by id; raises :class:`BackendsError` when there are none or the
        file was unusable."""
        if isinstance(self.backends, BackendsError):
            raise self.backends
        return self.backends

    def connect_stores(self) -> None:
        """Build the stores once Redis and the engine exist (no I/O: clients and scripts)."""
        self.batches = BatchStore(self.redis, ttl_s=self.settings.batch_ttl_s)
        self.campaigns = CampaignStore(self.redis)
        self.campaign_translations = Translations(self.redis, self.judge)
        self.studies = StudyStore(self.redis)
        self.probes = ProbeStore(self.redis, self.settings.batch_ttl_s)


def state_of(app: Any) -> ServiceState:
    """The state of ``app`` (made by ``api.app.create_app``)."""
    state = core_state(app)
    if not isinstance(state, ServiceState):
        raise RuntimeError("this app has no service state: build it with api.app.create_app")
    return state


async def get_state(request: Request) -> ServiceState:
    # a coroutine: FastAPI runs a plain function dependency in a worker thread
    return state_of(request.app)


StateDep = Annotated[ServiceState, Depends(get_state)]
