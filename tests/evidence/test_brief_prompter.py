"""The ``brief`` prompter: a generated suite's briefs are the prompts, sent as written."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import ValidationError

from eval.studies.config import StudyError, load_study
from eval.studies.prompters import PrompterSpec, write_prompt
from eval.studies.suite import SuiteTask


def test_the_brief_is_the_prompt(tmp_path: Path) -> None:
    spec = PrompterSpec(id="community", kind="brief")
    task = SuiteTask(id="t1", category="OE", brief="  a fox in fresh snow, 35mm photo ")
    out = asyncio.run(write_prompt(spec, task, tmp_path))
    assert (out.status, out.prompt) == ("ok", "a fox in fresh snow, 35mm photo")
    assert out.usage["calls"] == 0
    empty = SuiteTask(id="t2", category="OE", brief=" ")
    assert asyncio.run(write_prompt(spec, empty, tmp_path)).status == "empty"


def test_a_brief_prompter_takes_no_other_key(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="a brief prompter takes no model, condition"):
        PrompterSpec(id="p", kind="brief", model="openai/gpt-4o", condition="novice")
    (tmp_path / "tasks.jsonl").write_text('{"id": "t1", "category": "OE", "brief": "x"}\n')
    (tmp_path / "s.toml").write_text(
        '[study]\nname = "s"\ntasks = "tasks.jsonl"\n[[prompters]]\nid = "p"\nkind = "brief"\n'
        'prompts = "p.jsonl"\n[[backends]]\nid = "r"\nmodel = "builtin/renderer"\n')
    with pytest.raises(StudyError, match=r"s\.toml: prompters\[0\]: a brief prompter takes no "
                                         r"prompts"):
        load_study(tmp_path / "s.toml")
