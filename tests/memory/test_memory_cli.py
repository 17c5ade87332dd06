"""``judge memory`` build / add / search / list / stats, in-process."""

from __future__ import annotations

import json

from judge.cli.main import main
from tests.memory.conftest import prompt_records, write_jsonl


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_build_search_list_stats(tmp_path, capsys, prompt_file):
    store = str(tmp_path / "store")
    code, out, _ = run(
        capsys, "memory", "build", "prompt-CO", "--from", str(prompt_file), "--store", store
    )
    assert code == 0 and "8 prompt exemplars" in out and "st:all-MiniLM-L6-v2" in out
    code, out, _ = run(
        capsys,
        "memory",
        "search",
        "prompt-CO",
        "--text",
        "neon signs in a rainy night market",
        "--k",
        "2",
        "--json",
        "--store",
        store,
    )
    rows = json.loads(out)
    assert code == 0 and rows[0]["id"] == "p4" and len(rows) == 2
    assert rows[0]["similarity"] >= rows[1]["similarity"]
    code, out, _ = run(capsys, "memory", "list", "--store", store)
    assert code == 0 and "prompt-CO" in out and "8 exemplars" in out
    code, out, _ = run(
        capsys, "memory", "stats", "prompt-CO", "--json", "--verify", "--store", store
    )
    info = json.loads(out)
    assert code == 0 and info["count"] == 8 and info["checksum_ok"] is True
    assert set(info["score_histogram"]) == set(info["dimensions"])


def test_add_and_errors(tmp_path, capsys, prompt_file):
    store = str(tmp_path / "store")
    run(capsys, "memory", "build", "p", "--from", str(prompt_file), "--store", store)
    more = write_jsonl(tmp_path / "more.jsonl", prompt_records(2, start=30))
    code, out, _ = run(capsys, "memory", "add", "p", "--from", str(more), "--store", store)
    assert code == 0 and "now 10 exemplars" in out
    code, _, err = run(capsys, "memory", "add", "p", "--from", str(more), "--store", store)
    assert code == 2 and "already in memory" in err
    code, _, err = run(capsys, "memory", "search", "nope", "--text", "x", "--store", store)
    assert code == 2 and "unknown memory 'nope'" in err and "Traceback" not in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n')
    code, _, err = run(capsys, "memory", "build", "q", "--from", str(bad), "--store", store)
    assert code == 2 and "bad.jsonl:1: " in err
    code, _, err = run(
        capsys,
        "memory",
        "build",
        "q",
        "--from",
        str(prompt_file),
        "--encoder",
        "minilmm",
        "--store",
        store,
    )
    assert code == 2 and "did you mean 'minilm'" in err
    code, _, err = run(
        capsys,
        "memory",
        "build",
        "q",
        "--from",
        str(prompt_file),
        "--encoder",
        "efficientnet-lite0",
        "--store",
        store,
    )
    assert code == 2 and "text encoder" in err


def test_image_search_and_empty_store(tmp_path, capsys, image_file):
    store = str(tmp_path / "s")
    code, out, _ = run(capsys, "memory", "list", "--store", store)
    assert code == 0 and "no memories" in out
    run(capsys, "memory", "build", "img", "--from", str(image_file), "--store", store)
    code, out, _ = run(
        capsys,
        "memory",
        "search",
        "img",
        "--image",
        str(image_file.parent / "imgs" / "im3.png"),
        "--json",
        "--store",
        store,
    )
    assert code == 0 and json.loads(out)[0]["id"] == "i3"
