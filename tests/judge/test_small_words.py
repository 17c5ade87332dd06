"""Small words a newcomer reads (issue 38, item 12): ``judge serve --help`` gave every address
default twice (``(default 127.0.0.1) (default: None)``), and ``judge.Client`` on a dead port
said ``service answered 0: … unreachable``."""

from __future__ import annotations

import socket

import pytest

import judge
from judge.cli.main import main


def test_serve_help_names_each_default_once(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: None)" not in text
    assert "bind address (default: JUDGE_SERVE_HOST, else 127.0.0.1)" in text
    assert "port (default: JUDGE_SERVE_PORT, else 8080)" in text


def test_a_dead_port_says_could_not_connect() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    with judge.Client(url, retries=0) as client, pytest.raises(judge.ServiceError) as info:
        client.score("a red cube", [])
    assert str(info.value).startswith(f"could not connect to {url}")
    assert "answered 0" not in str(info.value) and info.value.status == 0
