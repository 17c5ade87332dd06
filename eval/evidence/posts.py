"""Reading a posts export: JSONL, one post a line
(docs/design.md#task-suites-from-posts-and-by-edit-type).

A line is ``{"id", "text", "created_at", "author", "reply_to"?, "quotes"?, "images"?}``;
image references are paths relative to the export's folder, or URLs (fetched only when
allowed, and then only through the hostile-URL fetcher :mod:`judge.io.remote`). A bad line
becomes an error ``{"line": "FILE:LINE", "field", "problem"}`` and the other lines are read.

Example:
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> d = Path(tempfile.mkdtemp())
    >>> good = {"id": "p1", "text": "my prompt", "created_at": "2024-05-01T10:00:00Z",
    ...         "author": "ann"}
    >>> _ = (d / "posts.jsonl").write_text(json.dumps(good) + "\\n{oops\\n")
    >>> posts, errors = read_posts(d / "posts.jsonl")
    >>> [p.id for p in posts], errors[0]["line"].endswith("posts.jsonl:2")
    (['p1'], True)
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from PIL import Image
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io.confine import PathEscape, inside
from judge.io.images import decode_image, read_image_bytes

MAX_LINE_BYTES = 256 * 1024
MAX_TEXT_CHARS = 20_000
MAX_IMAGES = 16


class Post(BaseModel):
    """One post of the export."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1, max_length=200)
    text: str = Field(max_length=MAX_TEXT_CHARS)
    created_at: datetime
    author: str = Field(max_length=200)
    reply_to: str | None = Field(default=None, max_length=200)
    quotes: list[str] = Field(default_factory=list, max_length=64)
    images: list[str] = Field(default_factory=list, max_length=MAX_IMAGES)

    @field_validator("created_at")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        """A time without a zone is read as UTC (posts are sorted by time across zones)."""
        return value if value.tzinfo else value.replace(tzinfo=UTC)


def _error(where: str, field: str, problem: str) -> dict[str, str]:
    return {"line": where, "field": field, "problem": problem}


def _text_problem(value: str) -> str | None:
    if "\x00" in value:
        return "contains a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "contains an unpaired surrogate (not valid Unicode text)"
    return None


def _check_text(post: Post, where: str) -> dict[str, str] | None:
    """A field holding a NUL character or a lone surrogate (text no file or model takes)."""
    fields: list[tuple[str, str | None]] = [
        ("id", post.id), ("text", post.text), ("author", post.author),
        ("reply_to", post.reply_to),
        *((f"quotes.{k}", q) for k, q in enumerate(post.quotes)),
        *((f"images.{k}", r) for k, r in enumerate(post.images)),
    ]
    for name, value in fields:
        problem = _text_problem(value) if value is not None else None
        if problem:
            return _error(where, name, problem)
    return None


def _check_refs(post: Post, where: str, allow_urls: bool) -> dict[str, str] | None:
    for k, ref in enumerate(post.images):
        field = f"images.{k}"
        if ref.startswith(("http://", "https://")):
            if not allow_urls:
                return _error(where, field, "URL images are off; pass --allow-urls to fetch them")
        elif "://" in ref or ref.startswith("data:"):
            return _error(where, field, f"unsupported image reference {ref[:40]!r}")
        elif Path(ref).is_absolute() or ".." in Path(ref).parts:
            return _error(where, field, "give a path relative to the export's folder")
    return None


def read_posts(
    path: Path, *, allow_urls: bool = False
) -> tuple[list[Post], list[dict[str, str]]]:
    """Every readable post and one error per bad line (never raises for a line's content).

    A repeated id keeps the first post and reports the later line.
    """
    path = Path(path)
    posts: list[Post] = []
    errors: list[dict[str, str]] = []
    seen: dict[str, int] = {}
    with path.open("rb") as fh:
        for n, raw in enumerate(fh, start=1):
            where = f"{path}:{n}"
            if not raw.strip():
                continue
            if len(raw) > MAX_LINE_BYTES:
                errors.append(_error(where, "(line)", f"over the {MAX_LINE_BYTES} byte limit"))
                continue
            try:
                obj: Any = json.loads(raw.decode("utf-8"))
            except RecursionError:
                errors.append(_error(where, "(line)", "nested too deeply to read"))
                continue
            except ValueError as exc:  # bad UTF-8 or JSON, a number too long to read
                errors.append(_error(where, "(line)", f"not a JSON object ({exc})"))
                continue
            if not isinstance(obj, dict):
                errors.append(_error(where, "(line)", "expected a JSON object {...}"))
                continue
            try:
                post = Post.model_validate(obj)
            except ValidationError as exc:
                err = exc.errors()[0]
                field = ".".join(str(p) for p in err["loc"]) or "(post)"
                errors.append(_error(where, field, err["msg"]))
                continue
            problem = _check_text(post, where) or _check_refs(post, where, allow_urls)
            if problem:
                errors.append(problem)
                continue
            if post.id in seen:
                errors.append(_error(where, "id", f"repeats the id of line {seen[post.id]}"))
                continue
            seen[post.id] = n
            posts.append(post)
    return posts, errors


def image_settings(allow_urls: bool) -> JudgeSettings:
    """Settings for reading attached images (local paths; URLs only when allowed)."""
    return JudgeSettings(allow_local_paths=True, allow_remote_images=allow_urls)


def image_bytes(ref: str, base_dir: Path, settings: JudgeSettings) -> bytes:
    """The bytes of one attached image (a path inside the export's folder, or an allowed
    URL); raises :class:`InputError`."""
    if not ref.startswith(("http://", "https://")):
        try:
            inside(base_dir, ref, folder="the export's folder")
        except PathEscape as exc:
            raise InputError("images", str(exc)) from None
    return read_image_bytes(ref, field="images", settings=settings, base_dir=base_dir)


def open_image(raw: bytes, settings: JudgeSettings) -> Image.Image:
    """One attached image's bytes decoded and vetted (size, pixels, format); raises
    :class:`InputError`."""
    return decode_image(raw, field="images", settings=settings)
