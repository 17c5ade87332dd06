"""judge.io.data_urls: the one builder of data: URLs, and its readers agree with it."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from PIL import Image

from judge.io.data_urls import data_url, file_data_url
from judge.io.images import load_pil


def test_data_url_round_trips_through_the_engine_reader() -> None:
    buf = io.BytesIO()
    Image.new("RGB", (3, 2), "red").save(buf, "PNG")
    url = data_url(buf.getvalue(), "image/png")
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == buf.getvalue()
    img = load_pil(url, field="images[0]")
    assert img.size == (3, 2) and img.getpixel((0, 0))[:3] == (255, 0, 0)


def test_file_data_url_types_by_extension_with_a_default(tmp_path: Path) -> None:
    (tmp_path / "a.jpg").write_bytes(b"\xff\xd8")
    (tmp_path / "noext").write_bytes(b"x")
    assert file_data_url(tmp_path / "a.jpg") == "data:image/jpeg;base64,/9g="
    assert file_data_url(tmp_path / "noext") == "data:image/png;base64,eA=="
    assert file_data_url(tmp_path / "noext", "application/octet-stream").startswith(
        "data:application/octet-stream;base64,"
    )
