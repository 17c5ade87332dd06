"""Task suites: the example suite, every error case (named by file, line and field), the
§7 task dicts given to the judge and the parent rule of checkpoints."""

from __future__ import annotations

import base64
import io
import json
import os
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from eval.studies import suite as suite_mod
from eval.studies.suite import (
    SuiteError,
    SuiteTask,
    load_suite,
    task_for_judge,
    write_suite,
)
from judge.domain.task import Primitive, Task
from judge.validation import parse_submission

from .conftest import EXAMPLE, check, task, write_lines

IM_TARGET = "targets/balloons_house.png"


def errors_of(path: Path, **kwargs: object) -> list[str]:
    with pytest.raises(SuiteError) as info:
        load_suite(path, **kwargs)
    assert str(info.value).splitlines()[0] == info.value.errors[0]
    return info.value.errors


# -- the example suite ---------------------------------------------------------------------------


def test_example_suite_covers_every_category_and_primitive() -> None:
    tasks = load_suite(EXAMPLE / "tasks.jsonl")
    assert Counter(t.category.value for t in tasks) == {"OE": 4, "CO": 4, "IM": 4}
    tagged = {p for t in tasks for p in t.tags.primitives}
    checked = {cp.primitive for t in tasks for cp in t.checklist}
    assert tagged == checked == set(Primitive)
    for t in tasks:  # hand-written, paired, tags consistent with the checks
        assert t.checklist and t.checklist_source is None
        assert all(cp.prompt_check and cp.image_check for cp in t.checklist)
        assert set(t.tags.primitives) == {cp.primitive for cp in t.checklist}
        assert t.tags.topic and t.tags.difficulty
    assert any(cp.parent for t in tasks for cp in t.checklist)  # dependencies are exercised


def test_example_targets_are_small_pngs_and_im_tasks_avoid_unobservable_primitives() -> None:
    for t in load_suite(EXAMPLE / "tasks.jsonl"):
        if t.category.value != "IM":
            assert t.target_image is None
            continue
        path = EXAMPLE / t.target_image
        assert path.stat().st_size < 60_000
        with Image.open(path) as img:
            assert img.format == "PNG" and img.size == (512, 512)
        assert not set(t.tags.primitives) & suite_mod.NOT_OBSERVABLE


def test_example_human_prompts_cover_every_task_once() -> None:
    ids = [t.id for t in load_suite(EXAMPLE / "tasks.jsonl")]
    lines = (EXAMPLE / "human_prompts.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    assert [r["task_id"] for r in rows] == ids
    assert all(set(r) == {"task_id", "prompt"} and len(r["prompt"]) > 40 for r in rows)


# -- tasks for the judge -------------------------------------------------------------------------


def test_task_for_judge_resolves_the_target_and_drops_tags(suite_dir: Path) -> None:
    path = write_lines(
        suite_dir / "tasks.jsonl",
        [
            task(
                "im_1",
                "IM",
                target_image=IM_TARGET,
                checklist=[check("c1"), check("c2", parent="c1")],
            )
        ],
    )
    (t,) = load_suite(path)
    as_path = task_for_judge(t, suite_dir)
    assert as_path["target_image"] == str((suite_dir / IM_TARGET).resolve())
    assert "tags" not in as_path and "checklist_source" not in as_path
    assert as_path["checklist"][1]["parent"] == "c1"
    inline = task_for_judge(t, suite_dir, inline=True)
    header, payload = inline["target_image"].split(",", 1)
    assert header == "data:image/png;base64"
    assert base64.b64decode(payload) == (suite_dir / IM_TARGET).read_bytes()
    for task_dict in (as_path, inline):  # both are valid §7 tasks of a submission
        sub = parse_submission({"task": task_dict, "prompt": "p", "images": []})
        assert sub.task.checklist[1].parent == "c1"


def test_tags_default_to_the_checklist_primitives_and_round_trip(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "tasks.jsonl",
        [
            task(
                "a", checklist=[check("c1", "text"), check("c2", "quantity"), check("c3", "text")]
            ),
            task("b", tags={"primitives": ["text", "text"], "topic": "sign"}),
        ],
    )
    a, b = load_suite(path)
    assert a.tags.primitives == [Primitive.text, Primitive.quantity]
    assert b.tags.primitives == [Primitive.text] and b.tags.topic == "sign"
    out = tmp_path / "copy.jsonl"
    write_suite([a, b], out)
    assert load_suite(out) == [a, b]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.jsonl", "tasks.jsonl"]  # no temp


# -- every error names file, line and field ------------------------------------------------------


def noise_png(path: Path, side: int) -> Path:
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(path, "PNG")
    return path


CASES = {
    "unknown primitive": (
        [task(checklist=[check("c1", "colour")])],
        ":1: checklist.0.primitive: Input should be",
    ),
    "unknown tag primitive": (
        [task(tags={"primitives": ["vibes"]})],
        ":1: tags.primitives.0: Input should be",
    ),
    "unknown field": ([task(level=3)], ":1: level: Extra inputs are not permitted (got 3)"),
    "bad category": ([task(category="XX")], ":1: category: Input should be"),
    "missing brief": ([{"id": "x", "category": "OE"}], ":1: brief: Field required"),
    "IM without target": ([task(category="IM")], ":1: target_image: an IM task needs one"),
    "target on OE": (
        [task(target_image=IM_TARGET)],
        ":1: target_image: only IM tasks have one; remove it or make this task IM (it is OE)",
    ),
    "missing target": (
        [task(category="IM", target_image="targets/nope.png")],
        ":1: target_image: image file",
    ),
    "target is a folder": (
        [task(category="IM", target_image="targets")],
        ":1: target_image: 'TMP/targets' is not a regular file",
    ),
    "corrupt target": (
        [task(category="IM", target_image="broken.png")],
        ":1: target_image: not a readable image",
    ),
    "target URL": (
        [task(category="IM", target_image="https://example.com/a.png")],
        ":1: target_image: give a file path (relative to the suite file), not a URL",
    ),
    "duplicate ids": (
        [task("a"), "", task("a")],
        ":3: id: task id 'a' is already used on line 1; task ids must be unique",
    ),
    "oversized brief": (
        [task(brief="x" * 20_001)],
        ":1: brief: String should have at most 20000 characters",
    ),
    "oversized check": (
        [task(checklist=[{"id": "c1", "primitive": "text", "image_check": "y" * 2001}])],
        ":1: checklist.0.image_check: String should have at most 2000 characters",
    ),
    "oversized line": (
        [json.dumps(task(brief="z" * 300_000))],
        ":1: line is over the 262144 byte limit",
    ),
    "bad JSON": (['{"id": "a", "category": '], ":1: invalid JSON (column 25: Expecting value)"),
    "not an object": (['["a", "b"]'], ":1: expected a JSON object {...}, got list"),
    "unknown parent": (
        [task(checklist=[check("c1"), check("c2", parent="c9")])],
        ":1: checklist: checkpoint 'c2' names parent 'c9', which is not a checkpoint",
    ),
    "cycle of parents": (
        [task(checklist=[check("c1", parent="c2"), check("c2", parent="c1")])],
        ":1: checklist: checkpoints 'c1' -> 'c2' -> 'c1' form a cycle of parents",
    ),
    "duplicate checkpoint": (
        [task(checklist=[check("c1"), check("c1")])],
        ":1: checklist: checkpoint id 'c1' appears more than once",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_problem_is_named_by_file_line_and_field(case: str, suite_dir: Path) -> None:
    lines, expected = CASES[case]
    (suite_dir / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"not really" * 20)
    path = write_lines(suite_dir / "tasks.jsonl", lines)
    errors = errors_of(path)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"{path}:"), errors
    assert expected.replace("TMP", str(suite_dir)) in errors[0], errors


def test_oversized_target_image(suite_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    noise_png(suite_dir / "big.png", 64)  # ~12 kB of incompressible pixels
    monkeypatch.setattr(suite_mod, "MAX_TARGET_BYTES", 4096)
    path = write_lines(suite_dir / "tasks.jsonl", [task(category="IM", target_image="big.png")])
    (error,) = errors_of(path)
    assert f"{path}:1: target_image: image is" in error and "JUDGE_IMAGE_MAX_BYTES" in error
    assert "over the limit of 4096 bytes" in error
    # and without the image checks the same file loads (the runner can check lazily)
    assert load_suite(path, check_images=False)[0].target_image == "big.png"


def test_all_problems_are_reported_at_once(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", ["nope", task("ok"), "", "[]", task("ok")])
    errors = errors_of(path)
    assert [e.split(":")[1] for e in errors] == ["1", "4", "5"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "the file holds no task; write one JSON task object per line"),
        (b"\n  \n\n", "the file holds no task; write one JSON task object per line"),
        (b"\xff\xfe{}", "not UTF-8 text"),
    ],
)
def test_empty_or_unreadable_files(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(content)
    assert errors_of(path) == [f"{path}: {expected}"]


def test_missing_and_oversized_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "absent.jsonl"
    assert errors_of(missing) == [f"{missing}: file does not exist or is not a regular file"]
    path = write_lines(tmp_path / "t.jsonl", [task()])
    monkeypatch.setattr(suite_mod, "MAX_SUITE_BYTES", 10)
    (error,) = errors_of(path)
    assert error.startswith(f"{path}: file is ") and "over the 10 limit" in error


def test_many_errors_are_capped_in_the_message(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", ["x"] * 60)
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    assert len(info.value.errors) == 60
    assert str(info.value).endswith("… and 10 more")


# -- parents in the §7 task ----------------------------------------------------------------------


def test_parent_is_optional_and_backward_compatible() -> None:
    old = Task.model_validate(
        {"id": "t", "category": "CO", "brief": "b", "checklist": [check("c1")]}
    )
    assert old.checklist[0].parent is None
    assert (
        "parent"
        not in task_for_judge(SuiteTask.model_validate(old.model_dump()), Path("."))["checklist"][0]
    )


def test_a_self_parent_is_a_cycle() -> None:
    with pytest.raises(ValueError, match="'c1' -> 'c1' form a cycle"):
        Task.model_validate(
            {"id": "t", "category": "CO", "brief": "b", "checklist": [check("c1", parent="c1")]}
        )


def test_load_suite_accepts_a_str_path(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "t.jsonl", [task()])
    assert load_suite(str(path))[0].id == "t1"  # type: ignore[arg-type]


def _png_bytes() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buf, "PNG")
    return buf.getvalue()


def test_absolute_target_paths_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "t.png"
    target.parent.mkdir()
    target.write_bytes(_png_bytes())
    path = write_lines(tmp_path / "t.jsonl", [task(category="IM", target_image=str(target))])
    (t,) = load_suite(path)
    assert task_for_judge(t, Path("/unrelated"))["target_image"] == str(target)
