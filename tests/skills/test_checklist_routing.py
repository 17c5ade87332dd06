"""Checklist cards are routed by primitive: one card per checkpoint and side, never two."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.cli.main import main
from judge.domain.task import Primitive
from judge.modes.score.planning import plan_work
from skills.card import SkillCard
from skills.primitives import PRIMITIVES
from skills.registry import CARD_DIR, SkillRegistry
from tests.conftest import EXAMPLE
from tests.skills.checklist_cards import example_submission, example_task, write_card


def registry_with(folder: Path) -> SkillRegistry:
    return SkillRegistry.from_dirs([CARD_DIR, folder])


def checked(items, side: str) -> list[tuple[str, str]]:
    """(card, checkpoint id) for every checkpoint the planned items check on ``side``."""
    return [(i.skill, cid) for i in items if i.modality == side for cid in i.checks]


def test_the_task_contract_and_the_cards_share_the_primitives() -> None:
    assert tuple(p.value for p in Primitive) == PRIMITIVES


def test_built_in_cards_take_every_primitive_on_their_side() -> None:
    reg = SkillRegistry.from_dirs([CARD_DIR])
    for category in ("OE", "CO", "IM"):
        for p in PRIMITIVES:
            assert reg.checklist_card("prompt", p, category) == "prompt_check"
            assert reg.checklist_card("image", p, category) == "image_check"


@pytest.mark.parametrize("batching", ["per_checkpoint", "per_modality"])
def test_a_second_general_card_never_duplicates_a_checkpoint(tmp_path: Path, batching: str) -> None:
    write_card(tmp_path, "strict_image_check", "image")
    items = plan_work(example_task(), registry_with(tmp_path), n_images=1, batching=batching)
    for side in ("prompt", "image"):
        ids = [cid for _, cid in checked(items, side)]
        assert len(ids) == 12 and len(set(ids)) == 12, (side, ids)
    # the card you add replaces the built-in general card of its side only
    assert {card for card, _ in checked(items, "image")} == {"strict_image_check"}
    assert {card for card, _ in checked(items, "prompt")} == {"prompt_check"}


def test_a_primitive_card_takes_exactly_its_checkpoints(tmp_path: Path) -> None:
    write_card(tmp_path, "ocr_check", "image", primitives=["text"])
    task = example_task()
    items = plan_work(task, registry_with(tmp_path), n_images=2, batching="per_checkpoint")
    texts = [cp.id for cp in task.checklist if cp.primitive == "text"]
    assert texts == ["c7", "c8"]
    for image in (0, 1):
        mine = [i for i in items if i.modality == "image" and i.image == image and i.checks]
        by_card = {i.checks[0]: i.skill for i in mine}
        assert len(mine) == 12 and sorted(by_card) == sorted(cp.id for cp in task.checklist)
        assert sorted(c for c, s in by_card.items() if s == "ocr_check") == texts
        assert all(s == "image_check" for c, s in by_card.items() if c not in texts)
    assert all(i.skill == "prompt_check" for i in items if i.modality == "prompt" and i.checks)


def test_a_primitive_card_batches_its_own_checkpoints(tmp_path: Path) -> None:
    write_card(tmp_path, "ocr_check", "image", primitives=["text"])
    items = plan_work(example_task(), registry_with(tmp_path), n_images=1, batching="per_modality")
    image = {i.skill: i.checks for i in items if i.modality == "image" and i.checks}
    assert image["ocr_check"] == ("c7", "c8")
    assert len(image["image_check"]) == 10


def test_a_primitive_card_serves_only_its_categories(tmp_path: Path) -> None:
    write_card(tmp_path, "ocr_check", "image", primitives=["text"], categories=["OE"])
    reg = registry_with(tmp_path)
    assert reg.checklist_card("image", "text", "OE") == "ocr_check"
    assert reg.checklist_card("image", "text", "CO") == "image_check"


def test_two_cards_claiming_a_primitive_on_one_side_name_both(tmp_path: Path) -> None:
    write_card(tmp_path, "ocr_check", "image", primitives=["text", "quantity"])
    write_card(tmp_path, "sign_check", "image", primitives=["text"])
    with pytest.raises(ValueError) as err:
        registry_with(tmp_path)
    message = str(err.value)
    assert "'ocr_check'" in message and "'sign_check'" in message and "'text'" in message
    assert "image side" in message and "primitives" in message


def test_two_added_general_cards_on_one_side_name_both(tmp_path: Path) -> None:
    write_card(tmp_path, "strict_check", "prompt")
    write_card(tmp_path, "lenient_check", "prompt")
    with pytest.raises(ValueError, match=r"'lenient_check'.*'strict_check'"):
        registry_with(tmp_path)


def test_the_same_primitive_on_the_two_sides_is_no_conflict(tmp_path: Path) -> None:
    write_card(tmp_path, "ocr_prompt_check", "prompt", primitives=["text"])
    write_card(tmp_path, "ocr_image_check", "image", primitives=["text"])
    reg = registry_with(tmp_path)
    assert reg.checklist_card("prompt", "text", "CO") == "ocr_prompt_check"
    assert reg.checklist_card("image", "text", "CO") == "ocr_image_check"


def test_a_disabled_card_is_not_routed(tmp_path: Path) -> None:
    path = write_card(tmp_path, "ocr_check", "image", primitives=["text"])
    path.write_text(path.read_text() + "enabled = false\n")
    assert registry_with(tmp_path).checklist_card("image", "text", "CO") == "image_check"


def card(**fields: object) -> SkillCard:
    base = {"name": "c", "kind": "objective-checklist", "version": "1", "modality": "image"}
    return SkillCard.model_validate({"template": "objective_image.md", **base, **fields})


def test_unknown_primitives_are_refused_with_the_list() -> None:
    with pytest.raises(ValueError, match=r"unknown primitives \['colour'\].*quantity"):
        card(primitives=["colour"])


def test_only_checklist_cards_take_primitives() -> None:
    with pytest.raises(ValueError, match="only objective-checklist cards"):
        card(kind="safety", safety_categories=["x"], primitives=["text"])


def test_a_checklist_card_checks_the_prompt_or_the_image() -> None:
    with pytest.raises(ValueError, match="modality must be one of"):
        card(modality="pair")


async def test_the_judge_scores_each_checkpoint_once_per_side(
    make_judge, provider, tmp_path: Path
) -> None:
    write_card(tmp_path / "cards", "ocr_check", "image", primitives=["text"])
    judge = make_judge(card_dirs=[str(tmp_path / "cards")])
    result = await judge.ascore(example_submission(), base_dir=EXAMPLE.parent)
    for side in ("prompt", "image"):
        ids = [i.id for i in result.objective[side].items]
        assert ids == [f"c{k}" for k in range(1, 13)], (side, ids)
        assert result.objective[side].scored == 12
    assert result.provenance.skills["ocr_check"] == "1.0.0"


def test_the_judge_refuses_conflicting_cards_when_it_resolves_its_skills(
    make_judge, tmp_path: Path
) -> None:
    write_card(tmp_path, "ocr_check", "image", primitives=["text"])
    write_card(tmp_path, "sign_check", "image", primitives=["text"])
    with pytest.raises(ValueError, match=r"'ocr_check'.*'sign_check'"):
        make_judge(card_dirs=[str(tmp_path)])


def test_judge_skills_shows_which_primitives_a_card_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:

    write_card(tmp_path, "ocr_check", "image", primitives=["text"])
    monkeypatch.setenv("JUDGE_SKILL_DIRS", str(tmp_path))
    assert main(["skills", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["ocr_check"]["primitives"] == ["text"] and rows["image_check"]["primitives"] == []
    assert main(["skills"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln for ln in lines if "primitives" in ln] == [
        next(ln for ln in lines if ln.startswith("ocr_check"))
    ]
    assert next(ln for ln in lines if ln.startswith("ocr_check")).endswith("(primitives: text)")
