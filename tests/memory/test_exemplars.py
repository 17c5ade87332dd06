"""Exemplar JSONL validation: clear errors naming the line."""

from __future__ import annotations

import json

import pytest

from memory.exemplar import ExemplarError, load_exemplars
from tests.memory.conftest import prompt_records, write_jsonl


def test_valid_file_loads(prompt_file):
    recs = load_exemplars(prompt_file)
    assert len(recs) == 8 and recs[0].category == "CO"


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda r: r.update(scores={"x": 6}), "between 1 and 5"),
        (lambda r: r.pop("prompt"), "needs a non-empty 'prompt'"),
        (lambda r: r.update(modality="image"), "needs 'image'"),
        (lambda r: r.update(category="XX"), "category"),
        (lambda r: r.update(rationales={"other": "x"}), "without a score"),
        (lambda r: r.update(scores={}), "scores"),
        (lambda r: r.update(colour="red"), "colour"),
    ],
)
def test_bad_line_names_the_line(tmp_path, mutate, needle):
    rows = prompt_records(3)
    mutate(rows[1])
    path = write_jsonl(tmp_path / "bad.jsonl", rows)
    with pytest.raises(ExemplarError) as err:
        load_exemplars(path)
    assert "bad.jsonl:2: " in str(err.value) and needle in str(err.value)


def test_not_json_and_duplicates(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps(prompt_records(1)[0]) + "\n{oops\n")
    with pytest.raises(ExemplarError, match=r"x.jsonl:2: not valid JSON"):
        load_exemplars(path)
    rows = prompt_records(2)
    rows[1]["id"] = rows[0]["id"]
    with pytest.raises(ExemplarError, match="already used on line 1"):
        load_exemplars(write_jsonl(tmp_path / "d.jsonl", rows))


def test_mixed_modalities_and_empty(tmp_path, image_file):
    rows = [*prompt_records(1), json.loads(image_file.read_text().splitlines()[0])]
    with pytest.raises(ExemplarError, match="mixes"):
        load_exemplars(write_jsonl(tmp_path / "m.jsonl", rows))
    (tmp_path / "e.jsonl").write_text("\n")
    with pytest.raises(ExemplarError, match="no exemplars"):
        load_exemplars(tmp_path / "e.jsonl")
    with pytest.raises(ExemplarError, match="cannot read"):
        load_exemplars(tmp_path / "missing.jsonl")
