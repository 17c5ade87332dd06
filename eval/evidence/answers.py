"""The structured answers the from-posts stages ask models for (validated by the gateway).

Example:
    >>> RelevanceGrade.model_validate({"grade": 4, "reason": "a full prompt"}).grade
    4
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Quality = Literal["benchmark", "analysis", "discard"]
Family = Literal["colour", "identity", "structure", "text", "other"]


class RelevanceGrade(BaseModel):
    """How useful one post is as evidence of real use (1 = not at all, 5 = very)."""

    grade: int = Field(ge=1, le=5)
    reason: str = Field(max_length=400)


class ExtractedSample(BaseModel):
    """One request found in a thread."""

    kind: Literal["prompt", "template", "screenshot"]
    prompt: str = Field(max_length=4000)
    image_ids: list[str] = Field(default_factory=list, max_length=32)
    feedback: list[str] = Field(default_factory=list, max_length=50)
    post_ids: list[str] = Field(default_factory=list, max_length=100)
    quality: Quality


class Extraction(BaseModel):
    """Every sample of one thread (none when the thread makes no request)."""

    samples: list[ExtractedSample] = Field(default_factory=list, max_length=50)


class ImageRole(BaseModel):
    """The part one attached image plays for a request."""

    role: Literal["input", "output", "neither"]
    chat_screenshot: bool = False


class TemplateFill(BaseModel):
    """A template completed from the image a completion posted."""

    prompt: str = Field(min_length=1, max_length=4000)


class Region(BaseModel):
    """A picture inside a screenshot: its role and box [left, top, right, bottom] in pixels."""

    role: Literal["input", "output"]
    box: list[int] = Field(min_length=4, max_length=4)


class ScreenshotParse(BaseModel):
    """What a screenshot of a chat with an image model shows."""

    prompt: str = Field(max_length=4000)
    regions: list[Region] = Field(default_factory=list, max_length=16)


class FeedbackLabel(BaseModel):
    """One remark, labelled."""

    index: int = Field(ge=0)
    label: Literal["success", "failure"]
    keyword: str = Field(min_length=1, max_length=40)
    family: Family = "other"


class FeedbackLabels(BaseModel):
    """Labels for every remark of one sample."""

    items: list[FeedbackLabel] = Field(default_factory=list, max_length=50)
