"""Errors that name every fault and say what to do (issue 48, item 22): a misspelt option gets
"did you mean" as a misspelt field does; a validation that finds several faults names them
all, not the first and "(and 2 more problem(s))"; a size refusal says the image's size and the
variable that raises the limit; ``judge --version``; a second ``judge serve`` on the same data
folder says its one-line reason (it used to end a traceback in the JSON log)."""

from __future__ import annotations

import base64
import fcntl
import io
import os
import socket
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from PIL import Image

from judge.cli.main import main
from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io.images import load_image
from judge.modes import get_mode

REPO = Path(__file__).resolve().parents[2]
TASK = {"id": "t", "category": "OE", "brief": "a red cube"}


def test_a_misspelt_option_gets_the_nearest_name() -> None:
    with pytest.raises(InputError) as caught:
        get_mode("score").parse_options({"skils": ["@default"]})
    assert caught.value.field == "options.skils"
    assert "unknown option; did you mean 'skills'?" in caught.value.message
    with pytest.raises(InputError, match=r"options.zzz: unknown option \(known: .*skills"):
        get_mode("score").parse_options({"zzz": 1})


def test_several_faults_are_all_named() -> None:
    body = {"task": {"id": "t"}, "prompt": 5}
    with pytest.raises(InputError) as caught:
        get_mode("score").parse(body)
    text = str(caught.value)
    assert caught.value.field == "task.category", text
    for named in ("task.category: this field is required", "task.brief: this field is required",
                  "prompt: Input should be a valid string"):  # fmt: skip
        assert named in text, text
    assert "more problem" not in text
    with pytest.raises(InputError) as caught:
        get_mode("score").parse_options({"retrieval_k": -1, "retrieval": "sometimes"})
    assert "options.retrieval_k" in str(caught.value) and "options.retrieval:" in str(caught.value)


def png(size: tuple[int, int]) -> bytes:
    buf = io.BytesIO()
    Image.effect_noise(size, 64).convert("RGB").save(buf, "PNG")
    return buf.getvalue()


def test_a_size_refusal_says_the_size_and_the_variable(tmp_path: Path) -> None:
    data = png((64, 64))
    url = "data:image/png;base64," + base64.b64encode(data).decode()
    small = JudgeSettings(image_max_bytes=1024)
    for ref in (url, str(tmp_path / "a.png")):
        (tmp_path / "a.png").write_bytes(data)
        with pytest.raises(InputError) as caught:
            load_image(ref, field="images[0]", settings=small)
        text = caught.value.message
        assert f"{len(data)} bytes" in text and "1024" in text, text
        assert "JUDGE_IMAGE_MAX_BYTES" in text, text
    with pytest.raises(InputError) as caught:
        load_image(url, field="images[0]", settings=JudgeSettings(image_max_pixels=100))
    assert "64x64" in caught.value.message and "JUDGE_IMAGE_MAX_PIXELS" in caught.value.message


def test_judge_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"judge {version('t2i-judge')}"


@pytest.mark.slow
def test_a_second_serve_on_the_same_data_folder_says_why_in_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "redis").mkdir(parents=True)
    with open(data / "redis" / "redis.lock", "a+") as lock:  # as a running judge serve holds it
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
        env.update(PYTHONPATH=str(REPO), JUDGE_DATA_DIR=str(data), JUDGE_MEMORY_DIR=str(data))
        env.pop("REDIS_URL", None)
        done = subprocess.run(
            [sys.executable, "-m", "judge.cli.main", "serve", "--port", str(port)],
            env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path,
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("judge serve: another process runs the embedded Redis of"), last
    assert "JUDGE_DATA_DIR" in last, last
