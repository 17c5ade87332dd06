"""The remote-image fetch has one deadline per download, not per read (issue 22, finding 10):
a loopback server trickling a byte at a time is cut off once ``remote_image_timeout_s`` has
passed in total, although every single read returns well within it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io import remote
from tests.api.test_remote_images import http_server

TRICKLE_BYTES = 400
TRICKLE_GAP_S = 0.05  # 20 s for the whole body, each read well under the timeout


class _Trickle(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "image/png")
        self.send_header("content-length", str(TRICKLE_BYTES))
        self.end_headers()
        try:
            for _ in range(TRICKLE_BYTES):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(TRICKLE_GAP_S)  # the server's pace, not a test synchronisation
        except OSError:  # the client hung up
            pass

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def trickle_server() -> Iterator[int]:
    with http_server(_Trickle) as port:
        yield port


def test_a_trickling_server_is_cut_off_at_the_total_deadline(trickle_server: int) -> None:
    settings = JudgeSettings().merged(allow_remote_images=True, remote_image_timeout_s=0.5)
    url = f"http://127.0.0.1:{trickle_server}/slow.png"
    with pytest.raises(InputError, match=r"did not download within 0\.5 s") as caught:
        remote.fetch_image(url, field="images[0]", settings=settings, allow_private=True)
    assert caught.value.field == "images[0]"
