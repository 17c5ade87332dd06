"""Requests the caller may name: an optional ``id``, else an id derived from the content.

Example:
    >>> class Ask(IdentifiedRequest):
    ...     text: str
    >>> Ask(id="a1", text="x").content_id(), len(Ask(text="x").content_id())
    ('a1', 16)
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from judge.json_digest import content_fingerprint


class IdentifiedRequest(BaseModel):
    """A request with no unknown fields whose first field is the caller's optional ``id``."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, max_length=128)

    def content_id(self) -> str:
        """The caller's id, else a fingerprint of the content."""
        return self.id or content_fingerprint(self.model_dump(mode="json"))
