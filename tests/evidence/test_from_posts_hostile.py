"""``judge tasks from-posts`` finishes whatever a line holds, and says when the model failed
(issue 38, items 2 and 3).

A fuzz export mixes good posts with lines of every JSON shape (deep nesting, numbers too long
to read, NUL bytes, lone surrogates, wrong types, naive and aware times): the run finishes and
names every bad line. Attached images are decoded once per content, a deeply nested journal
line is a clear error, and a model that fails every call is counted in the summary and has its
own exit code.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest
from PIL import Image

from eval.evidence.media import ImageStore
from eval.evidence.posts import image_settings
from eval.kit.journal import Journal, JournalError
from judge.cli.main import main
from tests.fakes.provider import FakeProvider

GOOD = {"text": "my prompt: a fox in snow", "created_at": "2024-05-01T10:00:00Z",
        "author": "ann", "images": ["fox.png"]}
DEEP = 50_000


def _bad_lines() -> list[bytes]:
    """One line of each hostile shape (each must be reported, none may end the run)."""
    post = {**GOOD, "id": "x"}
    shapes: list[object] = [
        "[" * DEEP + "]" * DEEP,
        {**post, "id": "nul-image", "images": ["fox\u0000.png"]},
        {**post, "id": "nul\u0000id"},
        {**post, "id": "nul-text", "text": "prompt \u0000 here"},
        {**post, "id": "surrogate-text", "text": "prompt \ud800"},
        {**post, "id": "surrogate-image", "images": ["\udfff.png"]},
        {**post, "id": "surrogate-author", "author": "\ud83d"},
        {**post, "id": 7},
        {**post, "id": "t-list", "text": ["prompt"]},
        {**post, "id": "images-str", "images": "fox.png"},
        {**post, "id": "images-int", "images": [1]},
        {**post, "id": "quotes-dict", "quotes": {"a": 1}},
        {**post, "id": "when-bool", "created_at": True},
        {**post, "id": "when-huge", "created_at": 10**30},
        {**post, "id": "reply-num", "reply_to": 3},
        {**post, "id": "big-text", "text": "p" * 20_001},
        {**post, "id": "many-images", "images": ["fox.png"] * 17},
        None, [], "text", 3.5, True, {},
    ]
    lines = [x.encode() if isinstance(x, str) and x.startswith("[[") else
             json.dumps(x).encode() for x in shapes]
    digits = "9" * 5000
    lines += [
        b'{"id": "deep-extra", "text": "prompt", "created_at": "2024-05-01", "author": "a", '
        b'"extra": ' + b"[" * DEEP + b"]" * DEEP + b"}",
        b'{"id": "huge-int", "text": "prompt", "created_at": ' + digits.encode()
        + b', "author": "a"}',
        b'{"id": "huge-extra", "text": "prompt", "created_at": "2024-05-01", "author": "a", "n": '
        + digits.encode() + b"}",
        b'{"id": "inf", "text": "prompt", "created_at": Infinity, "author": "a"}',
        b'{"id": "bad-utf8", "text": "prompt \xff\xfe", "created_at": "2024-05-01", "author": "a"}',
        b'{"id": "raw-nul", "text": "prompt", "created_at": "2024-05-01", "author": "a"}\x00',
        b"{" * 1000,
        b'"\\ud800"',
    ]
    return lines


def _export(folder: Path, seed: int = 0) -> tuple[Path, set[int], int]:
    """posts.jsonl with good posts and every bad shape shuffled among them; returns the file,
    the numbers of the bad lines and the number of good posts."""
    folder.mkdir()
    Image.new("RGB", (64, 48), (200, 120, 40)).save(folder / "fox.png")
    good = [json.dumps({**GOOD, "id": f"g{k}", "created_at": when}).encode()
            for k, when in enumerate(["2024-05-01T10:00:00Z", "2024-05-01T11:00:00",
                                      "2024-05-02", "2024-05-03T09:00:00+02:00"])]
    # an ignored field nested a little deep is still a good post
    good.append(json.dumps({**GOOD, "id": "nested-extra", "x": json.loads("[" * 500 + "]" * 500)})
                .encode())
    tagged = [(line, False) for line in good] + [(line, True) for line in _bad_lines()]
    random.Random(seed).shuffle(tagged)
    path = folder / "posts.jsonl"
    path.write_bytes(b"\n".join(line for line, _ in tagged) + b"\n")
    bad = {n for n, (_, is_bad) in enumerate(tagged, start=1) if is_bad}
    return path, bad, len(good)


def _answer(body: dict) -> dict:
    name = body["response_format"]["json_schema"]["name"]
    if name == "RelevanceGrade":
        return {"grade": 5, "reason": "a request"}
    if name == "Extraction":
        return {"samples": []}
    raise AssertionError(name)


def _args(posts: Path, out: Path, api_base: str) -> list[str]:
    return ["tasks", "from-posts", str(posts), "--out", str(out), "--model", "openai/fake-llm",
            "--api-base", api_base, "--api-key-env", "FAKE_KEY", "--no-progress",
            "--no-shift"]


@pytest.mark.parametrize("seed", [0, 1])
def test_every_json_shape_is_reported_and_the_run_finishes(
    provider: FakeProvider, tmp_path: Path, capsys, monkeypatch, seed: int
) -> None:
    monkeypatch.setenv("FAKE_KEY", "k")
    provider.on(lambda body: "response_format" in body, _answer)
    posts, bad, n_good = _export(tmp_path / "export", seed)
    code = main(_args(posts, tmp_path / "out", provider.base_url))
    captured = capsys.readouterr()
    assert code == 1, captured.err
    named = {int(line.split(":")[1]) for line in captured.err.splitlines()
             if line.startswith(f"{posts}:")}
    assert named == bad
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["stages"]["posts"] == n_good and report["stages"]["malformed"] == len(bad)
    assert report["stages"]["relevant"] == n_good  # every good post went on to the model
    problems = {e["problem"] for e in report["errors"]}
    assert "nested too deeply to read" in problems
    assert "contains a NUL character" in problems
    assert any("surrogate" in p for p in problems)


def test_a_model_that_fails_every_call_is_counted_with_its_own_exit_code(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("FAKE_KEY", "k")
    monkeypatch.setenv("JUDGE_MAX_RETRIES", "0")
    folder = tmp_path / "export"
    folder.mkdir()
    lines = [json.dumps({**GOOD, "images": [], "id": f"p{k}", "text": f"prompt {k}"})
             for k in range(3)]
    (folder / "posts.jsonl").write_text("\n".join(lines) + "\n")
    dead = "http://127.0.0.1:9/v1"  # nothing listens on the discard port
    code = main(_args(folder / "posts.jsonl", tmp_path / "out", dead))
    captured = capsys.readouterr()
    assert code == 3, captured
    assert "failed model calls 3" in captured.out
    assert "3 model call(s) failed (relevance 3)" in captured.err
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["calls"]["failed"]["relevance"] == 3


def test_an_image_referenced_many_times_is_decoded_once(tmp_path: Path) -> None:
    Image.effect_noise((256, 256), 60).convert("RGB").save(tmp_path / "a.png")
    (tmp_path / "copy.png").write_bytes((tmp_path / "a.png").read_bytes())
    store = ImageStore(tmp_path, tmp_path / "out", image_settings(False))
    store.refs = {f"p{k}#0": "a.png" if k % 2 else "copy.png" for k in range(16)}

    async def every() -> list[Image.Image]:
        return [await store.open(f"p{k}#0") for k in range(16)]

    opened = asyncio.run(every())
    assert all(img is opened[0] for img in opened)  # one decoded copy for 16 references


def test_a_deeply_nested_journal_line_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"k": "a", "v": ' + "[" * DEEP + "]" * DEEP + "}\n")
    with pytest.raises(JournalError, match=r"events.jsonl:1: unreadable journal entry"):
        Journal(path)
