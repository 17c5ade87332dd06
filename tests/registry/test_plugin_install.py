"""A plugin is a distribution of its own: installed into a fresh venv, its skill kind (with a
card), dataset adapter and editor work through the product's ordinary ways, and nothing in
the project changes.

The plugin is the one docs/extending.md shows (its blocks written to tmp_path): a
``pyproject.toml`` with ``[project.entry-points."t2i_judge.*"]`` tables, one module and a
card. It is installed offline with
pip (``--no-index --no-deps --no-build-isolation``) into a venv whose ``.pth`` file puts this
checkout and the project venv's packages on the path (a venv made from a venv's interpreter
would otherwise see only the base Python's packages). The project is not installed in that
venv, so what the plugin is found through is its own metadata only.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.docs.pages import blocks

REPO = Path(__file__).resolve().parents[2]


def page_files() -> dict[str, str]:
    """The plugin's files as docs/extending.md gives them: each block whose first line is a
    comment naming its path."""
    files = {}
    for language in ("toml", "python"):
        for body in blocks("extending.md", language):
            first = body.splitlines()[0]
            if first.startswith("# ") and first.removeprefix("# ").startswith(
                ("pyproject.toml", "acme_judge_plugin/")
            ):
                files[first.removeprefix("# ").strip()] = body
    return files


USE = """\
import asyncio, contextlib, io, json, sys
from pathlib import Path

from PIL import Image

from judge.cli.main import main

work = Path(sys.argv[1])
# 1. the plugin's card and kind, scored by `judge score` with the mock judge model
out = io.StringIO()
with contextlib.redirect_stdout(out):
    assert main(["score", str(work / "sub.json"), "--skills", "acme_brightness",
                 "--format", "json"]) == 0
(work / "result.json").write_text(out.getvalue())
# 2. the plugin's dataset adapter, through `judge meta-eval`
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["meta-eval", "--dataset", "acme-lines", "--data", str(work / "items.jsonl"),
                 "--out", str(work / "run"), "--no-safety", "--n-boot", "20"]) == 0
# 3. the plugin's editor, named in a backends file like any editor, through the edit path
from eval.i2i import ImageEditor, load_editors

spec = load_editors(work / "editors.toml")["flip"]
src = (work / "img.png").read_bytes()
gen = asyncio.run(ImageEditor().edit(spec, src, "Mirror the picture.", 1))
edited = Image.open(io.BytesIO(gen.images[0]))
print(json.dumps({"edit": gen.status, "builtin": spec.is_builtin,
                  "pixel": list(edited.getpixel((0, 0)))}))
"""


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{cmd[:4]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _venv(root: Path) -> Path:
    """A venv seeing this checkout, then the project venv's packages (pip and setuptools
    included), through a .pth file; no pip of its own (faster, and offline)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    project = sysconfig.get_paths()["purelib"]
    Path(purelib, "t2i_judge_under_test.pth").write_text(f"{REPO}\n{project}\n")
    return python


def _project_state() -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip


@pytest.mark.slow
def test_a_plugin_distribution_adds_a_kind_a_dataset_adapter_and_an_editor(
    tmp_path: Path,
) -> None:
    before = _project_state()
    src = tmp_path / "plugin"
    files = page_files()
    assert sorted(files) == [
        "acme_judge_plugin/__init__.py",
        "acme_judge_plugin/cards/acme_brightness.toml",
        "pyproject.toml",
    ]
    for name, body in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(body)
    python = _venv(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env |= {"JUDGE_MODEL": "mock/judge", "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    _run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", str(src)],
        env, tmp_path,
    )  # fmt: skip
    shutil.rmtree(src)  # what is used from here on is the installed copy only

    work = tmp_path / "work"
    work.mkdir()
    from PIL import Image

    img = Image.new("RGB", (32, 16), (250, 250, 250))
    img.putpixel((31, 0), (10, 20, 30))
    img.save(work / "img.png")
    sub = {"id": "s1", "task": {"id": "t1", "category": "OE", "brief": "A white card."},
           "prompt": "a white card", "images": ["img.png"]}  # fmt: skip
    (work / "sub.json").write_text(json.dumps(sub))
    rows = [{"id": f"i{k}", "prompt": f"card {k}", "image": "img.png", "brightness": k % 5 + 1}
            for k in range(6)]  # fmt: skip
    (work / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (work / "editors.toml").write_text('[[editors]]\nid = "flip"\nmodel = "acme/mirror"\n')
    (work / "use.py").write_text(USE)

    done = _run([str(python), str(work / "use.py"), str(work)], env, work)
    edit = json.loads(done.stdout.strip().splitlines()[-1])
    assert edit == {"edit": "ok", "builtin": True, "pixel": [10, 20, 30]}  # flipped in process
    result = json.loads((work / "result.json").read_text())
    brightness = result["subjective"]["image"]["brightness"]
    assert 1 <= brightness["score"] <= 5 and brightness["skill"] == "acme_brightness@0.1.0"
    assert result["provenance"]["skills"]["acme_brightness"] == "0.1.0"
    report = json.loads((work / "run" / "report.json").read_text())
    assert "brightness" in json.dumps(report)
    assert (work / "run" / "predictions.jsonl").read_text().count("\n") == 6
    assert _project_state() == before  # nothing in the project changed
