"""The direct route's request bodies (judge.llm.direct.template): images joined in between the
encoded pieces give exactly the bytes ``json.dumps`` gives (issue 37)."""

from __future__ import annotations

import base64
import json
import os

from judge.llm.direct.template import FORMAT, PROBE, RequestTemplate, message_pieces
from skills.types import DataURL


def url(n: int, kind: type = DataURL) -> str:
    return kind("data:image/jpeg;base64," + base64.b64encode(os.urandom(n)).decode())


BIG, OTHER = url(9000), url(12000)
CONVERSATIONS = [
    [{"role": "user", "content": "plain text, no image"}],
    [
        {"role": "system", "content": 'rules with "quotes", \\ and é'},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "two images"},
                {"type": "image_url", "image_url": {"url": BIG}},
                {"type": "image_url", "image_url": {"url": OTHER}},
            ],
        },
        {"role": "assistant", "content": "{}"},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": BIG}}]},
    ],
    [  # small, or a plain str: encoded as usual
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url(30)}}]},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url(9000, str)}}]},
    ],
]


def test_pieces_join_to_what_json_dumps_gives() -> None:
    for messages in CONVERSATIONS:
        assert "".join(message_pieces(messages)) == json.dumps(messages)


def test_each_large_image_is_a_piece_of_its_own() -> None:
    pieces = message_pieces(CONVERSATIONS[1])
    assert [p for p in pieces if p.startswith("data:")] == [BIG, OTHER, BIG]


def test_a_rendered_body_is_litellms_bytes() -> None:
    body = {"model": "m", "messages": PROBE, "temperature": 0.0, "response_format": FORMAT}
    template = RequestTemplate.from_body("http://h/v1/chat/completions", {}, body)
    for messages in CONVERSATIONS:
        expected = json.dumps({**body, "messages": messages, "response_format": FORMAT})
        assert template.render(messages, FORMAT) == expected.encode()
