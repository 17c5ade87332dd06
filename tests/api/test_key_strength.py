"""Weak API keys (issue 38, item 6): a one-character key was accepted even on a public bind.
``judge serve`` now refuses keys under 16 characters or with fewer than 8 different ones on
any address but loopback, naming the variable and the key's position (never the key), and
warns about them on loopback."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest
import uvicorn

from api.core.key_strength import weak_key
from api.core.settings import ServiceSettings
from judge.cli.main import main as judge_main


def _clear(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in (
        "JUDGE_SERVE_API_KEYS",
        "JUDGE_SERVE_ADMIN_KEYS",
        "JUDGE_SERVE_ALLOW_OPEN_PUBLIC",
        "JUDGE_SERVE_HOST",
        "JUDGE_SERVE_PORT",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JUDGE_DATA_DIR", str(tmp_path))


def test_a_public_bind_refuses_weak_keys(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _clear(monkeypatch, tmp_path)
    ran: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: ran.append(kw))
    strong = secrets.token_urlsafe(24)
    monkeypatch.setenv("JUDGE_SERVE_API_KEYS", f"{strong},k")
    monkeypatch.setenv("JUDGE_SERVE_ADMIN_KEYS", "aaaaaaaaaaaaaaaaaaaaaaaa")
    assert judge_main(["serve", "--host", "0.0.0.0", "--port", "18080"]) == 2
    err = capsys.readouterr().err
    assert "refusing to serve on 0.0.0.0 with weak API keys" in err
    assert "JUDGE_SERVE_API_KEYS key 2 of 2 needs at least 16 characters" in err
    assert "JUDGE_SERVE_ADMIN_KEYS key 1 of 1" in err and "1 different" in err
    assert strong not in err and not ran

    monkeypatch.setenv("JUDGE_SERVE_API_KEYS", strong)
    monkeypatch.setenv("JUDGE_SERVE_ADMIN_KEYS", secrets.token_urlsafe(24))
    assert judge_main(["serve", "--host", "0.0.0.0", "--port", "18080"]) == 0
    assert ran and ran[0]["host"] == "0.0.0.0"


def test_a_loopback_bind_warns_about_weak_keys(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _clear(monkeypatch, tmp_path)
    ran: list[dict] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: ran.append(kw))
    monkeypatch.setenv("JUDGE_SERVE_API_KEYS", "k1")
    assert judge_main(["serve", "--host", "127.0.0.1", "--port", "18080"]) == 0
    assert "warning: JUDGE_SERVE_API_KEYS key 1 of 1 needs at least 16" in capsys.readouterr().err
    assert ran


def test_the_rule() -> None:
    assert weak_key(secrets.token_urlsafe(24)) is None
    assert weak_key("abcdefghijklmno") is not None  # 15 characters
    assert weak_key("abababababababababab") is not None  # 2 different
    assert ServiceSettings(host="127.0.0.3").loopback_only
    assert not ServiceSettings(host="0.0.0.0").loopback_only
