"""The graph state. Parallel writers only touch reducer-annotated keys."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from pydantic import BaseModel

from judge.agent.work import SafetyOutcome, WorkItem, WorkOutcome


class JudgeState(TypedDict, total=False):
    """What flows through the graph for one request."""

    work: list[WorkItem]
    outcomes: Annotated[list[WorkOutcome], operator.add]
    safety: SafetyOutcome
    result: BaseModel


class WorkTask(TypedDict):
    """The payload of the one ``run_work`` send: every planned item."""

    items: list[WorkItem]
