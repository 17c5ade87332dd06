"""Small real images and campaign bodies for the campaign tests."""

from __future__ import annotations

import base64
import hashlib
import io
import time
from typing import Any

import httpx
from PIL import Image, ImageDraw

from eval.campaigns.ingest import stored_form

COLOURS = ["#d33", "#3a3", "#33d", "#dd3", "#3dd", "#d3d", "#888", "#f80"]


def png(colour: str, mark: int = 0, size: tuple[int, int] = (48, 40)) -> bytes:
    """A small picture: a coloured field with a few shapes (distinct per ``mark``)."""
    img = Image.new("RGB", size, colour)
    d = ImageDraw.Draw(img)
    for k in range(mark % 5 + 1):
        d.ellipse((4 + 7 * k, 6, 10 + 7 * k, 14 + k), fill="white")
    d.rectangle((5, 26, 20 + mark % 20, 34), fill="black")
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def stored(raw: bytes) -> bytes:
    """The bytes the service keeps (and serves) for an image it was sent."""
    return stored_form(Image.open(io.BytesIO(raw)))


def fingerprint(raw: bytes) -> str:
    """A name for image bytes (what a test compares served images by: their keys are
    secret HMACs the client cannot derive)."""
    return hashlib.sha256(raw).hexdigest()


def data_url(raw: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(raw).decode()


def pairwise_body(cid: str, n_items: int = 6, **extra: Any) -> dict[str, Any]:
    items = []
    for i in range(n_items):
        items.append(
            {
                "id": f"p{i}",
                "prompt": f"a red kite number {i} over a calm grey sea",
                "a": {"model": "m1", "image": data_url(png(COLOURS[i % 8], i))},
                "b": {"model": "m2", "image": data_url(png(COLOURS[(i + 3) % 8], i + 1))},
            }
        )
    return {"id": cid, "kind": "pairwise", "criterion": "preference", "items": items, **extra}


def rating_body(cid: str, n_items: int = 4, **extra: Any) -> dict[str, Any]:
    items = [
        {
            "id": f"r{i}",
            "instruction": "Make the sky orange.",
            "source_image": data_url(png(COLOURS[i % 8], i)),
            "image": data_url(png(COLOURS[(i + 1) % 8], i)),
            "model": f"editor-{i % 2}",
        }
        for i in range(n_items)
    ]
    return {"id": cid, "kind": "rating", "criterion": "instruction_following", "items": items,
            **extra}  # fmt: skip


def ranking_body(cid: str, n_items: int = 3, k: int = 3, **extra: Any) -> dict[str, Any]:
    items = [
        {
            "id": f"k{i}",
            "prompt": f"three lanterns on a pier, variant {i}",
            "outputs": [
                {"model": f"m{j}", "image": data_url(png(COLOURS[(i + j) % 8], i * 3 + j))}
                for j in range(k)
            ],
        }
        for i in range(n_items)
    ]
    return {"id": cid, "kind": "ranking", "criterion": "preference", "items": items, **extra}


def invite(admin: httpx.Client, cid: str, count: int) -> list[dict[str, str]]:
    r = admin.post(f"/v1/campaigns/{cid}/invitations", json={"count": count})
    assert r.status_code == 201, r.text
    return r.json()["invitations"]


def answer_all(client: httpx.Client, token: str, pick: Any, limit: int = 500) -> int:
    """Answer every task of an invitation with ``pick(task) -> answer fields``; the number
    accepted. A penalty is waited out on the server's clock (polled, no fixed sleep)."""
    accepted = 0
    for _ in range(limit):
        r = client.get(f"/v1/label/{token}/next")
        if r.status_code == 204:
            return accepted
        assert r.status_code == 200, r.text
        task = r.json()["task"]
        while True:
            got = client.post(f"/v1/label/{token}/answers", json={"task": task["id"], **pick(task)})
            assert got.status_code == 200, got.text
            if got.json()["accepted"]:
                accepted += 1
                break
            time.sleep(min(0.05, got.json()["penalty_s"]))
    raise AssertionError("too many tasks")
