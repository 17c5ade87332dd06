"""The shell and TOML examples of docs/tasks-from-posts.md and docs/edit-tasks.md, run."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import tomllib
from pathlib import Path

from eval.edit_tasks.cards import load_categories
from judge.cli.main import main
from tests.edit_tasks.test_edit_tasks import SOURCES, correct_editor
from tests.evidence.export import Truth
from tests.fakes.provider import FakeProvider

DOCS = Path(__file__).resolve().parents[2] / "docs"


def blocks(name: str, lang: str) -> list[str]:
    text = (DOCS / name).read_text(encoding="utf-8")
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


def run_doc_command(line: str, provider: FakeProvider | None) -> int:
    argv = shlex.split(line)
    assert argv[0] == "judge"
    argv = argv[1:]
    if "--model" in argv:
        k = argv.index("--model")
        argv[k + 1] = "openai/fake-llm"
        argv += ["--api-base", provider.base_url, "--no-progress"]
    return main(argv)


def test_from_posts_doc(
    correct_llm: FakeProvider, export: tuple[Path, Truth], tmp_path: Path, monkeypatch
) -> None:
    posts, _ = export
    shutil.copytree(posts.parent, tmp_path / "work" / "export")
    monkeypatch.chdir(tmp_path / "work")
    first, second = blocks("tasks-from-posts.md", "sh")
    assert run_doc_command(first.strip(), correct_llm) == 1  # the export has bad lines
    suite = [json.loads(x) for x in Path("bench/suite.t2i.jsonl").read_text().splitlines()]
    suite += [json.loads(x) for x in Path("bench/suite.i2i.jsonl").read_text().splitlines()]
    assert suite and all(t["provenance"]["posts"] for t in suite)
    # two models' graded outputs (as a panel of two judges would give) and a human ranking
    rows = [{"prompt_id": t["id"], "model": m, "judge": j, "split":
             "i2i" if t.get("source_image") else "t2i", "score": s}
            for k, t in enumerate(suite) for j in ("j1", "j2")
            for m, s in (("flux", 4 if k % 3 else 3), ("sd3", 3))]
    Path("judged.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    Path("humans.jsonl").write_text(json.dumps({"ranking": ["flux", "sd3"]}) + "\n")
    assert run_doc_command(second.strip(), None) == 0
    report = json.loads(Path("run/run_report.json").read_text())
    best = report["leaderboards"]["all"]["models"][0]
    assert best["model"] == "flux" and best["ci95"]
    assert set(report["leaderboards"]) == {"all", "t2i", "i2i"}
    assert report["kendall_tau_b"]["overall"] == 1.0
    assert report["failures"]["yellow tint"] > 0 and "colour" in report["shift_metrics"]


def test_edit_tasks_doc(provider: FakeProvider, tmp_path: Path, monkeypatch) -> None:
    from PIL import Image
    from skimage import data

    provider.on(lambda body: "response_format" in body, correct_editor)
    monkeypatch.chdir(tmp_path)
    Path("photos").mkdir()
    for name, (fn, _) in SOURCES.items():
        Image.fromarray(getattr(data, fn)()).convert("RGB").resize((64, 64)).save(
            Path("photos") / name)
    generate, imported = blocks("edit-tasks.md", "sh")
    assert run_doc_command(generate.strip(), provider) == 0
    assert len(Path("edits.jsonl").read_text().splitlines()) > 40
    Path("photos/mine.csv").write_text(
        "image,instruction,category,edit_type\ncoffee.png,Remove the spoon.,objects,"
        "remove_object\n")
    assert run_doc_command(imported.strip(), None) == 0
    assert json.loads(Path("edits.jsonl").read_text())["edit_type"] == "remove_object"
    (card,) = blocks("edit-tasks.md", "toml")
    Path("cards").mkdir()
    Path("cards/space.toml").write_text(card)
    assert tomllib.loads(card)["name"] in load_categories(Path("cards"))
