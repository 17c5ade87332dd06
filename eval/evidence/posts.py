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
from datetime import datetime
from pathlib import Path
from typing import Any

from PIL import Image
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io.images import load_pil

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


def _error(where: str, field: str, problem: str) -> dict[str, str]:
    return {"line": where, "field": field, "problem": problem}


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
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
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
            problem = _check_refs(post, where, allow_urls)
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


def open_image(ref: str, base_dir: Path, settings: JudgeSettings) -> Image.Image:
    """One attached image, vetted (size, pixels, format); raises :class:`InputError`."""
    if not ref.startswith(("http://", "https://")):
        resolved = (base_dir / ref).resolve()
        if not resolved.is_relative_to(base_dir.resolve()):
            raise InputError("images", "the path leaves the export's folder")
    return load_pil(ref, field="images", settings=settings, base_dir=base_dir)
