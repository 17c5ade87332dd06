"""The shell and TOML examples of docs/tasks-from-posts.md and docs/edit-tasks.md, run."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import tomllib
from pathlib import Path

import pytest

from eval.edit_tasks.cards import load_categories
from judge.cli.main import main
from tests.edit_tasks.test_edit_tasks import SOURCES, correct_editor
from tests.evidence.export import Truth
from tests.evidence.fake_judge import JUDGE, is_judge_call, preference, size_judge
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


def study_file_for(text: str, provider: FakeProvider) -> str:
    """The docs' study file with its judge pointed at the fake provider (as run_doc_command
    does for ``--model``)."""
    judge = tomllib.loads(text)["judge"]["model"]
    assert text.count(f'model = "{judge}"') == 1
    return text.replace(f'model = "{judge}"',
                        f'model = "openai/{JUDGE}"\napi_base = "{provider.base_url}"')


@pytest.mark.slow
def test_from_posts_doc(
    provider: FakeProvider, export: tuple[Path, Truth], tmp_path: Path, monkeypatch
) -> None:
    """The page's walk, block by block: posts export → suites → study of two backends →
    report with win rates, failure tallies and shift metrics."""
    posts, truth = export
    prompts: list[str] = []
    provider.on(is_judge_call, size_judge(prompts))  # first: the study's judge
    provider.on(lambda body: "response_format" in body, truth.answer)  # the from-posts stages
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    shutil.copytree(posts.parent, tmp_path / "work" / "export")
    monkeypatch.chdir(tmp_path / "work")
    build, run, report_cmd = (b.strip() for b in blocks("tasks-from-posts.md", "sh"))
    study, _keywords = blocks("tasks-from-posts.md", "toml")
    assert run_doc_command(build, provider) == 1  # the export has bad lines
    suite = [json.loads(x) for x in Path("bench/suite.t2i.jsonl").read_text().splitlines()]
    assert suite and all(t["provenance"]["posts"] for t in suite)
    prompts += [t["brief"] for t in suite]
    Path("study.toml").write_text(study_file_for(study, provider))
    assert run_doc_command(run, None) == 0
    lines = [json.loads(x) for x in Path("runs/gpt-4o/results.jsonl").read_text().splitlines()]
    backends = [b["id"] for b in tomllib.loads(study)["backends"]]
    assert {(x["task_id"], x["backend"]) for x in lines} == {
        (t["id"], b) for t in suite for b in backends}
    assert all(x["prompt"] == t["brief"] for t in suite for x in lines if x["task_id"] == t["id"])
    assert all(x["status"] == "scored" for x in lines), [x["reason"] for x in lines]
    assert run_doc_command(report_cmd, None) == 0
    report = json.loads(Path("report/run_report.json").read_text())
    assert report["judges"] == ["gpt-4o"] and report["models"] == sorted(backends)
    board = report["leaderboards"]["all"]
    assert set(report["leaderboards"]) == {"all", "t2i"}
    # by construction: recomputed from the suite's prompts and the judge's preferences
    prefs = [preference(t["brief"]) for t in suite]
    expected = 100 * (prefs.count("large") + 0.5 * prefs.count("tie")) / len(prefs)
    rates = {m["model"]: m for m in board["models"]}
    assert rates["renderer-large"]["score"] == round(expected, 2)
    assert rates["renderer-small"]["score"] == round(100 - expected, 2)
    assert rates["renderer-large"]["ties"] == prefs.count("tie")
    low, high = rates["renderer-large"]["ci95"]
    assert low < expected < high
    assert report["failures"] == json.loads(Path("bench/report.json").read_text())["failures"]
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


def test_the_example_export_and_the_keyword_filter_as_documented(
    provider: FakeProvider, tmp_path: Path, monkeypatch, capsys
) -> None:
    """Issue 38: the shipped example export runs as the page says (three of six posts pass the
    default keyword filter), the page lists the packaged keywords, and its keyword file parses."""
    from eval.evidence.keywords import DEFAULT_FILE, KeywordWindows

    def answer(body: dict) -> dict:
        name = body["response_format"]["json_schema"]["name"]
        return {"grade": 4, "reason": "a request"} if name == "RelevanceGrade" else {"samples": []}

    provider.on(lambda body: "response_format" in body, answer)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.chdir(DOCS.parent)
    (line,) = blocks("tasks-from-posts.md", "text")
    line = line.strip().replace("/tmp/posts-bench", str(tmp_path / "bench"))
    assert run_doc_command(line, provider) == 0
    assert "keyword 3 → relevant 3" in capsys.readouterr().out
    page = (DOCS / "tasks-from-posts.md").read_text(encoding="utf-8")
    words = tomllib.loads(DEFAULT_FILE.read_text(encoding="utf-8"))["window"][0]["keywords"]
    assert ", ".join(f"`{w}`" for w in words) in page
    _study, keywords = blocks("tasks-from-posts.md", "toml")
    assert len(KeywordWindows.parse(tomllib.loads(keywords)).windows) == 2
