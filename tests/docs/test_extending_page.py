"""The checklist card of docs/extending.md loads, routes as the page says and runs."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from judge.domain.task import Task
from judge.engine import Judge
from judge.modes.score.planning import plan_work
from skills.registry import default_registry
from tests.docs.pages import blocks

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "co_106" / "submission.json"


@pytest.fixture
def my_cards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The page's card written to ``my_cards/`` in a fresh working folder."""
    (card,) = [b for b in blocks("extending.md", "toml") if 'name = "ocr_image_check"' in b]
    folder = tmp_path / "my_cards"
    folder.mkdir()
    (folder / "ocr_image_check.toml").write_text(card, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JUDGE_SKILL_DIRS", raising=False)
    return folder


def test_the_python_example_prints_what_its_comments_say(my_cards: Path) -> None:
    (code,) = [b for b in blocks("extending.md", "python") if "checklist_card" in b]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/extending.md", "exec"), {})
    expected = [line.split("# ")[-1] for line in code.splitlines() if line.startswith("print(")]
    assert out.getvalue().split() == expected == ["ocr_image_check", "image_check", "prompt_check"]


def test_the_card_takes_the_text_checkpoints_of_co_106(my_cards: Path) -> None:
    judge = Judge(model="mock/judge", card_dirs=[str(my_cards)])
    submission = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    result = judge.score(submission, base_dir=EXAMPLE.parent)
    for side in ("prompt", "image"):
        assert [i.id for i in result.objective[side].items] == [f"c{k}" for k in range(1, 13)]
    assert result.provenance.skills["ocr_image_check"] == "1.0.0"
    task = Task.model_validate(submission["task"])
    items = plan_work(task, default_registry([my_cards]), n_images=1, batching="per_checkpoint")
    image = {i.checks[0]: i.skill for i in items if i.modality == "image" and i.checks}
    assert sorted(c for c, skill in image.items() if skill == "ocr_image_check") == ["c7", "c8"]
    assert sum(skill == "image_check" for skill in image.values()) == 10
