"""The stored campaign, typed: what ``POST /v1/campaigns`` becomes once its images are keys
(docs/design.md#human-label-campaigns), read and written only through :class:`CampaignRecord`.

The JSON form (Redis ``judge:campaign:<id>:meta``) is the one the service always wrote: keys
in the order below, ``json.dumps``'s separators and ASCII escapes, a field that a record
was stored without stays absent (:meth:`CampaignRecord.dumps` writes the fields that were
set, so an old record read and written again keeps its bytes). Items keep only the fields of
their kind, in the same way.

Example:
    >>> rec = CampaignRecord.loads('{"id": "c1", "kind": "rating", "criterion": "appeal",'
    ...     ' "card": {"question": "How appealing?", "show_prompt": true, "title": "Appeal",'
    ...     ' "anchors": {}}, "items": [{"id": "i1", "prompt": null, "image": "k1",'
    ...     ' "model": "m1", "validation": null}]}')
    >>> rec.item("i1").image, rec.votes_per_item, rec.validation_ids
    ('k1', 5, [])
    >>> rec.dumps()[:36]
    '{"id": "c1", "kind": "rating", "crit'
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from eval.campaigns.demographics import Reference
from eval.campaigns.models import JudgeAnswer, Kind, QualityBars
from eval.kit.stored import StoredRecord


class StoredOutput(StoredRecord):
    """One model's image of an item: the model and the image's key."""

    model: str
    image: str


class Card(StoredRecord):
    """What annotators are asked (from the criterion's card)."""

    question: str
    show_prompt: bool = False
    title: str = ""
    anchors: dict[str, str] = Field(default_factory=dict)


class Rule(StoredRecord):
    """How a validation item is checked (:func:`eval.campaigns.validation.passes`): one of
    ``answer`` (pairwise side), ``range`` (acceptable ratings), ``last`` (the model ranked
    last) or ``order`` (the whole order); ``source`` is ``gold`` (the admin's) or the kind
    of generated task."""

    answer: str | None = None
    range: list[float] | None = None
    last: str | None = None
    order: list[str] | None = None
    source: str = "validation"


class StoredItem(StoredRecord):
    """One item as stored: images are keys. Which fields it has depends on the campaign's
    kind (pairwise ``a``/``b``; rating ``image``, ``source_image``, ``instruction``,
    ``model``; ranking ``outputs``); ``validation`` is the rule of a validation item."""

    id: str
    prompt: str | None = None
    a: StoredOutput | None = None
    b: StoredOutput | None = None
    image: str | None = None
    source_image: str | None = None
    instruction: str | None = None
    model: str | None = None
    outputs: list[StoredOutput] | None = None
    validation: Rule | None = None
    judge: JudgeAnswer | None = None

    def image_keys(self) -> list[str]:
        """Every image key the item shows, in display-independent order."""
        outs = [self.a, self.b, *(self.outputs or [])]
        keys = [o.image for o in outs if o is not None]
        return keys + [k for k in (self.source_image, self.image) if k]


class CampaignRecord(StoredRecord):
    """A stored campaign: the admin's settings (those of
    :class:`eval.campaigns.models.CampaignCreate`), the card, the items with validation
    items added, the status at creation and each image's file extension."""

    id: str
    kind: Kind
    criterion: str
    votes_per_item: int = 5
    extra_votes: int = 0
    session_size: int = 3
    min_seconds: float = 2.0
    penalty_s: float = 5.0
    validation: str = "auto"
    validation_every: int = 4
    lease_seconds: float = 600.0
    translate_prompts: bool = False
    prompt_language: str = "en"
    translate_into: list[str] | None = None
    translation_budget: int | None = None
    demographics: bool = False
    demographics_reference: Reference | None = None
    compared: str = ""
    judged_by: str = ""
    title: str = ""
    instructions: str = ""
    qc: QualityBars = Field(default_factory=QualityBars)
    seed: int = 0
    card: Card
    items: list[StoredItem]
    status: str = "open"
    image_ext: dict[str, str] = Field(default_factory=dict)
    _by_id: dict[str, StoredItem] = PrivateAttr(default_factory=dict)
    _validation: list[str] = PrivateAttr(default_factory=list)

    def model_post_init(self, _context: Any) -> None:
        self._by_id = {i.id: i for i in self.items}
        self._validation = sorted(i.id for i in self.items if i.validation is not None)

    @classmethod
    def loads(cls, raw: str | bytes) -> CampaignRecord:
        """A record from its stored JSON."""
        return cls.model_validate(json.loads(raw))

    def dumps(self) -> str:
        """The stored JSON (what the service has always written: ``json.dumps`` of the
        fields that were set)."""
        return json.dumps(self.stored())

    def item(self, item_id: str) -> StoredItem:
        """An item by id (KeyError when the campaign has none)."""
        return self._by_id[item_id]

    def find(self, item_id: str) -> StoredItem | None:
        """An item by id, or None."""
        return self._by_id.get(item_id)

    @property
    def validation_ids(self) -> list[str]:
        """The ids of the validation items (generated and the admin's), sorted."""
        return self._validation

    def real_items(self) -> list[StoredItem]:
        """The items that are not validation items, in stored order."""
        return [i for i in self.items if i.validation is None]

    def with_status(self, status: str) -> CampaignRecord:
        """This record with ``status`` (a shallow copy: items and indexes are shared)."""
        if status == self.status:
            return self
        return self.model_copy(update={"status": status})


class TokenOwner(BaseModel):
    """Whom an invitation link belongs to (Redis ``judge:campaign-token:<sha256>``)."""

    model_config = ConfigDict(frozen=True)
    campaign: str
    annotator: str
