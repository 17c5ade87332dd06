"""``judge study publish`` and ``judge study import-prompts`` against the live service:
a suite with an IM target is registered, participants' prompts come back as the files a
``human`` prompter reads, and every option and failure is exercised."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from PIL import Image

from judge.cli.main import main
from tests.api.conftest import LiveService, free_port, live_service

TASKS = [
    {
        "id": "oe_1",
        "category": "OE",
        "brief": "A harbour at dusk.",
        "tags": {"primitives": ["abstract_intent"]},
    },
    {
        "id": "im_1",
        "category": "IM",
        "brief": "Copy the picture.",
        "target_image": "targets/im_1.png",
    },
]


@pytest.fixture(scope="module")
def service(module_tmp: Path) -> Iterator[LiveService]:
    env = {"JUDGE_SERVE_API_KEYS": "reader", "JUDGE_SERVE_ADMIN_KEYS": "s3cret"}
    with live_service(env, module_tmp / "data") as svc:
        yield svc


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "targets").mkdir()
    Image.new("RGB", (40, 30), "green").save(tmp_path / "targets" / "im_1.png")
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(json.dumps(t) for t in TASKS) + "\n\n", encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def admin_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUDY_ADMIN", "s3cret")
    monkeypatch.delenv("JUDGE_ADMIN_KEY", raising=False)


def publish(service: LiveService, suite: Path, study: str, *extra: str) -> int:
    return main(
        [
            "study",
            "publish",
            str(suite),
            "--url",
            service.base_url,
            "--study",
            study,
            "--admin-key-env",
            "STUDY_ADMIN",
            *extra,
        ]
    )


def test_publish_then_import_round_trip(
    service: LiveService, suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    codes_file = tmp_path / "codes.txt"
    code = publish(
        service,
        suite,
        "cli-1",
        "--participants",
        "2",
        "--name",
        "CLI study",
        "--max-prompt-chars",
        "80",
        "--instructions",
        "Be brief.",
        "--codes-out",
        str(codes_file),
    )
    assert code == 0
    codes = codes_file.read_text().split()
    assert len(codes) == 2 and "page " + service.base_url + "/ui/studies/cli-1" in (
        capsys.readouterr().out
    )
    # the target image went with the study and is served to a participant
    with httpx.Client(base_url=service.base_url, headers={"origin": service.base_url}) as c:
        c.post("/ui/studies/cli-1/code", data={"code": codes[0]})
        image = c.get("/ui/studies/cli-1/targets/im_1")
        assert Image.open(io.BytesIO(image.content)).size == (40, 30)
        page = c.get("/ui/studies/cli-1")
        assert "CLI study" in page.text and 'data-max="80"' in page.text
        assert "Be brief." in page.text
        for who, task, text in [
            (codes[0], "oe_1", "ميناء 🌅"),
            (codes[0], "im_1", "绿色"),
            (codes[1], "im_1", "green card"),
        ]:
            r = c.post(
                "/v1/studies/cli-1/prompts",
                json={"participant": who, "task_id": task, "prompt": text},
            )
            assert r.status_code == 200, r.text

    out = tmp_path / "human.jsonl"
    args = ["study", "import-prompts", "--url", service.base_url, "--study", "cli-1"]
    assert main([*args, "--out", str(out), "--admin-key-env", "STUDY_ADMIN"]) == 0
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert rows == [
        {"task_id": "oe_1", "prompt": "ميناء 🌅", "participant": codes[0]},
        {"task_id": "im_1", "prompt": "绿色", "participant": codes[0]},
        {"task_id": "im_1", "prompt": "green card", "participant": codes[1]},
    ]
    folder = tmp_path / "per"
    assert (
        main([*args, "--out", str(folder), "--per-participant", "--admin-key-env", "STUDY_ADMIN"])
        == 0
    )
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{c}.jsonl" for c in codes)
    mine = [json.loads(x) for x in (folder / f"{codes[1]}.jsonl").read_text().splitlines()]
    assert mine == [{"task_id": "im_1", "prompt": "green card"}]
    one = tmp_path / "one.jsonl"
    assert (
        main(
            [
                *args,
                "--out",
                str(one),
                "--participant",
                codes[1].lower(),
                "--admin-key-env",
                "STUDY_ADMIN",
            ]
        )
        == 0
    )
    assert [json.loads(x)["participant"] for x in one.read_text().splitlines()] == [codes[1]]
    # the default variable is JUDGE_ADMIN_KEY
    default = tmp_path / "default.jsonl"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUDGE_ADMIN_KEY", "s3cret")
        assert main([*args, "--out", str(default)]) == 0
    assert default.read_text() == out.read_text()


def test_publish_with_given_codes_and_its_errors(
    service: LiveService, suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    codes = tmp_path / "codes.txt"
    codes.write_text("alice-12345\n\nbob-2345678\n")
    assert publish(service, suite, "cli-2", "--codes", str(codes)) == 0
    assert capsys.readouterr().out.split()[-2:] == ["ALICE-12345", "BOB-2345678"]
    assert publish(service, suite, "cli-2", "--participants", "1") == 2
    assert "exists already" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "category": "OE", "brief": "x"}\n\n{"id": "b", "category": "Q"}\n')
    assert publish(service, bad, "cli-3", "--participants", "1") == 2
    assert f"{bad}:3" in capsys.readouterr().err
    missing = tmp_path / "missing.jsonl"
    missing.write_text(json.dumps({**TASKS[1], "target_image": "nope.png"}) + "\n")
    assert publish(service, missing, "cli-4", "--participants", "1") == 2
    assert f"{missing}:1: target_image" in capsys.readouterr().err


def test_import_errors_say_what_to_do(
    service: LiveService,
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = str(tmp_path / "x.jsonl")
    base = ["study", "import-prompts", "--study", "cli-none", "--out", out]
    assert main([*base, "--url", service.base_url, "--admin-key-env", "NOT_SET_ANYWHERE"]) == 2
    assert "NOT_SET_ANYWHERE is not set" in capsys.readouterr().err
    assert main([*base, "--url", service.base_url]) == 2  # no key sent
    assert "--admin-key-env" in capsys.readouterr().err
    monkeypatch.setenv("WRONG", "reader")
    assert main([*base, "--url", service.base_url, "--admin-key-env", "WRONG"]) == 2
    assert "HTTP 403" in capsys.readouterr().err
    assert main([*base, "--url", service.base_url, "--admin-key-env", "STUDY_ADMIN"]) == 2
    assert "no study 'cli-none'" in capsys.readouterr().err
    assert (
        main([*base, "--url", f"http://127.0.0.1:{free_port()}", "--admin-key-env", "STUDY_ADMIN"])
        == 1
    )
    err = capsys.readouterr().err
    assert "could not connect to http://127.0.0.1:" in err and "(judge serve)" in err
    assert main([*base, "--url", "ftp://x", "--admin-key-env", "STUDY_ADMIN"]) == 2
    assert not Path(out).exists()
