"""A built-in card reads a memory you name (issue 38, item 14): ``memories={"avt_appeal":
"my-appeal"}`` per run (``judge.score``, ``judge score --memory``, ``JUDGE_MEMORIES``) and
``options.memories`` per request bind the card's dimension to your memory without writing a
card. The Result's provenance names the memory that was read."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from PIL import Image

import judge
from judge.cli.main import main
from memory.exemplar import ExemplarRecord
from memory.store import MemoryStore
from tests.api.conftest import LiveService, assert_error

CARD = "avt_appeal"


def build_mine(store_dir: Path, name: str = "my-appeal") -> str:
    """A small image memory of made-up appeal ratings."""
    folder = store_dir.parent / f"{name}-images"
    folder.mkdir(parents=True, exist_ok=True)
    records = []
    for i, colour in enumerate(("red", "green", "blue", "gray")):
        Image.new("RGB", (48, 48), colour).save(folder / f"{i}.png")
        records.append(ExemplarRecord(id=f"e{i}", modality="image", image=f"{i}.png",
                                      scores={"appeal": 1.0 + i}))
    MemoryStore(store_dir).build(name, records, base_dir=folder)
    return name


def test_per_run_in_python_and_on_the_command_line(tmp_path: Path, capsys, monkeypatch) -> None:
    store = tmp_path / "memories"
    name = build_mine(store)
    image = tmp_path / "cat.png"
    Image.new("RGB", (64, 64), "orange").save(image)
    settings = {"skills": [CARD], "memory_dir": str(store), "model": "mock/judge"}
    bound = judge.score("an orange square", [image], memories={CARD: name}, **settings)
    assert name in bound.provenance.memories, bound.provenance.memories
    own = judge.score("an orange square", [image], **settings)
    assert name not in own.provenance.memories  # the card's own memory (absent in this store)
    sub = tmp_path / "sub.json"
    sub.write_text(json.dumps({"task": {"id": "t", "category": "OE", "brief": "b",
                                        "checklist": []},
                               "prompt": "an orange square", "images": ["cat.png"]}))
    code = main(["score", str(sub), "--skills", CARD, "--memory-dir", str(store),
                 "--model", "mock/judge", "--memory", f"{CARD}={name}", "--compact"])
    assert code == 0
    assert name in json.loads(capsys.readouterr().out)["provenance"]["memories"]
    assert main(["score", str(sub), "--memory", "no-equals-sign"]) == 2
    monkeypatch.setenv("JUDGE_MEMORIES", json.dumps({CARD: name}))
    code = main(["score", str(sub), "--skills", CARD, "--memory-dir", str(store),
                 "--model", "mock/judge", "--compact"])
    assert code == 0
    assert name in json.loads(capsys.readouterr().out)["provenance"]["memories"]


def test_per_request_through_the_service(open_service: LiveService,
                                         open_client: httpx.Client) -> None:
    name = build_mine(open_service.data_dir / "memories", "my-appeal-service")
    body = {"submission": {"task": {"id": "t", "category": "OE", "brief": "b", "checklist": []},
                           "prompt": "a square", "images": [_data_url()]},
            "options": {"skills": [CARD], "memories": {CARD: name}}}
    r = open_client.post("/v1/score", json=body)
    assert r.status_code == 200, r.text
    assert name in r.json()["provenance"]["memories"]
    body["options"]["memories"] = {"no_such_card": name}
    err = assert_error(open_client.post("/v1/score", json=body), 400,
                       "options.memories.no_such_card")
    assert "no card or dimension" in err["message"]


def _data_url() -> str:
    import base64
    import io

    buf = io.BytesIO()
    Image.new("RGB", (32, 32), "teal").save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
