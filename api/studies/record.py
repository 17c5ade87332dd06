"""The stored study, typed: what ``POST /v1/studies`` writes to Redis
(``judge:study:<id>:meta``), read and written only through :class:`StudyRecord`.

The JSON form is the one the service always wrote: keys in the order below, ``json.dumps``'s
separators and ASCII escapes; a field a record was stored without stays absent, and a field
this version does not know is kept (:meth:`StudyRecord.dumps` writes the fields that were
set). A task keeps every field of its suite line (:class:`eval.studies.suite.SuiteTask`,
checked when the study was registered); the four the service reads are typed.

Example:
    >>> rec = StudyRecord.loads('{"id": "s1", "name": "Harbour", "tasks": [{"id": "oe_1",'
    ...     ' "category": "OE", "brief": "A quiet harbour.", "target_image": null,'
    ...     ' "tags": {"topic": "harbour"}}], "max_prompt_chars": 300,'
    ...     ' "created_at": "2026-01-01T00:00:00.000000Z"}')
    >>> rec.kind, rec.task_ids, rec.task_index("oe_1")
    ('prompt', ['oe_1'], 1)
    >>> rec.dumps()[:40]
    '{"id": "s1", "name": "Harbour", "tasks":'
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import PrivateAttr

from eval.kit.stored import StoredRecord


class StudyTask(StoredRecord):
    """One task of a study: its suite line, checked at registration (the other fields of
    :class:`eval.studies.suite.SuiteTask` ride along untouched)."""

    id: str
    category: str
    brief: str
    target_image: bool | str | None = None  # True once the image is stored (target:<task>)


class StudyRecord(StoredRecord):
    """A stored study: the admin's settings of :class:`api.studies.models.StudyCreate`,
    its checked tasks and when it was registered."""

    id: str
    name: str
    instructions: str = ""
    kind: Literal["prompt", "edit"] = "prompt"
    tasks: list[StudyTask]
    max_prompt_chars: int
    created_at: str
    _index: dict[str, int] = PrivateAttr(default_factory=dict)

    def model_post_init(self, _context: Any) -> None:
        self._index = {t.id: n for n, t in enumerate(self.tasks, start=1)}

    @classmethod
    def loads(cls, raw: str | bytes) -> StudyRecord:
        """A record from its stored JSON."""
        return cls.model_validate(json.loads(raw))

    def dumps(self) -> str:
        """The stored JSON (``json.dumps`` of the fields that were set)."""
        return json.dumps(self.stored())

    @property
    def task_ids(self) -> list[str]:
        """The tasks' ids, in study order."""
        return list(self._index)

    def task_index(self, task_id: str) -> int | None:
        """The 1-based position of a task, or None when the study has no such task."""
        return self._index.get(task_id)
