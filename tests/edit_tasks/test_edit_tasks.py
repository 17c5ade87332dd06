"""``judge tasks edits``: categories, one instruction per edit type, dedupe, checks, CSV import."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from PIL import Image
from skimage import data

from eval.edit_tasks.cards import CardError, families, load_categories
from judge.cli.main import main
from tests.fakes.provider import FakeProvider

BLOCK = re.compile(r"<<<DATA ([A-Z ]+) #(\w+)>>>\n(.*?)\n<<<END DATA \1 #\2>>>", re.S)
SOURCES = {"astronaut.png": ("astronaut", "people"), "chelsea.png": ("chelsea", "animals"),
           "coffee.png": ("coffee", "objects"), "rocket.png": ("rocket", "landscapes")}


@pytest.fixture
def images(tmp_path: Path) -> Path:
    """Source images from scikit-image's packaged data."""
    folder = tmp_path / "photos"
    folder.mkdir()
    for name, (fn, _) in SOURCES.items():
        Image.fromarray(getattr(data, fn)()).convert("RGB").resize((96, 96)).save(folder / name)
    return folder


def _blocks(body: dict) -> tuple[str, dict[str, str]]:
    text = "\n".join(p.get("text", "") for m in body["messages"]
                     for p in (m["content"] if isinstance(m["content"], list)
                               else [{"text": m["content"]}]))
    return text, {label: content for label, _, content in BLOCK.findall(text)}


def correct_editor(body: dict) -> dict:
    """Answers like a careful model: the right category, one instruction per type (one of
    them a repeat of another), and a check that rejects viewpoint changes."""
    name = body["response_format"]["json_schema"]["name"]
    text, blocks = _blocks(body)
    if name == "ImageCategory":
        return {"category": SOURCES[blocks["IMAGE ID"]][1]}
    if name == "EditInstructions":
        types = re.findall(r"^- `(\w+)`:", text, re.M)
        image = blocks["IMAGE ID"]
        items = [{"edit_type": t, "instruction": f"Apply a {t} edit to {image}."} for t in types]
        items.append({"edit_type": types[0], "instruction": items[0]["instruction"].upper()})
        return {"items": items}
    if name == "CheckAnswer":
        ok = "viewpoint_change" not in text.split("Edit type `", 1)[1].split("`")[0]
        return {"matches": ok, "reason": "fits" if ok else "asks for two edits"}
    raise AssertionError(name)


def _args(provider: FakeProvider, *extra: str) -> list[str]:
    return ["--model", "openai/fake-vlm", "--api-base", provider.base_url, "--no-progress",
            *extra]


def test_cards_cover_seven_categories_and_21_families() -> None:
    cats = load_categories()
    assert len(cats) == 7 and len(families()) == 21
    used = {f for c in cats.values() for f in c.families}
    assert used == set(families())
    creative = {c.creative.name for c in cats.values()}
    assert len(creative) == 7 and not creative & set(families())


def test_generates_checked_unique_instructions(
    provider: FakeProvider, images: Path, tmp_path: Path
) -> None:
    provider.on(lambda body: "response_format" in body, correct_editor)
    out = tmp_path / "edits.jsonl"
    assert main(["tasks", "edits", str(images), "--out", str(out), *_args(provider)]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    cats = load_categories()
    for name, (_, cat) in SOURCES.items():
        mine = [r for r in rows if r["source_image"].endswith(name)]
        expected = set(cats[cat].types) - {"viewpoint_change"}
        assert {r["edit_type"] for r in mine} == expected  # one per type, checked
        assert all(r["category"] == cat for r in mine)
        assert (out.parent / mine[0]["source_image"]).resolve() == (images / name).resolve()
    assert len({r["id"] for r in rows}) == len(rows)
    assert set(rows[0]) == {"id", "instruction", "source_image", "category", "edit_type"}
    assert len({r["instruction"].lower() for r in rows}) == len(rows)  # repeats dropped


def test_user_categories_skip_the_classifier_and_user_cards_extend(
    provider: FakeProvider, images: Path, tmp_path: Path
) -> None:
    provider.on(lambda body: "response_format" in body, correct_editor)
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "space.toml").write_text(
        'name = "space"\nversion = "1"\ndescription = "Rockets, planets and the night sky."\n'
        'families = ["add_object", "lighting_change"]\n'
        '[creative]\nname = "alien_visit"\ndefinition = "Add a friendly alien visitor."\n')
    csv = tmp_path / "cats.csv"
    csv.write_text("image,category\n" + "".join(
        f"{n},{'space' if n == 'rocket.png' else c}\n" for n, (_, c) in SOURCES.items()))
    out = tmp_path / "e.jsonl"
    assert main(["tasks", "edits", str(images), "--out", str(out), "--types", str(cards),
                 "--categories", str(csv), *_args(provider)]) == 0
    names = [b["response_format"]["json_schema"]["name"] for b in provider.requests]
    assert "ImageCategory" not in names
    rocket = [json.loads(x) for x in out.read_text().splitlines() if "rocket" in x]
    assert {r["edit_type"] for r in rocket} == {"add_object", "lighting_change", "alien_visit"}
    (cards / "bad.toml").write_text('name = "bad"\nversion = "1"\ndescription = "x"\n')
    with pytest.raises(CardError, match=r"bad\.toml"):
        load_categories(cards)


def test_import_csv_and_bad_rows(images: Path, tmp_path: Path, capsys) -> None:
    csv = images / "mine.csv"
    csv.write_text("image,instruction,category,edit_type\n"
                   "coffee.png,Remove the spoon from the saucer.,objects,remove_object\n"
                   "chelsea.png,Give the cat a red collar.,animals,attire_change\n")
    out = tmp_path / "hand.jsonl"
    assert main(["tasks", "edits", "--from-csv", str(csv), "--out", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["coffee-remove_object", "chelsea-attire_change"]
    bad = images / "bad.csv"
    bad.write_text("image,instruction,category,edit_type\n"
                   "nope.png,Remove it please.,objects,remove_object\n"
                   "coffee.png,Turn it.,objects,pose_change\n")
    assert main(["tasks", "edits", "--from-csv", str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2: image: no such file" in err
    assert f"{bad}:3: edit_type: 'pose_change' is not a type of objects" in err
