"""The base of the records the service keeps as JSON (a campaign, a study): fields a newer
service wrote survive a read and write here, and only the fields that were set are written
back, in their declared order, so what is stored stays byte-for-byte what was read.

Example:
    >>> class Note(StoredRecord):
    ...     text: str
    ...     tags: list[str] = []
    >>> note = Note.model_validate({"text": "hi", "added_later": 1})
    >>> note.stored()
    {'text': 'hi', 'added_later': 1}
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class StoredRecord(BaseModel):
    """A stored JSON record (or a part of one): extra fields kept, NaN and infinity refused."""

    # extra="allow": a field written by a newer service survives a read and write here
    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    def stored(self) -> dict[str, Any]:
        """The JSON-ready form: the fields that were set, in their declared order."""
        return self.model_dump(mode="json", exclude_unset=True)
