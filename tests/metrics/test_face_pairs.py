"""face_identity on several people, tilted faces and a face painted out: pairs and counts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from benchmarks.faces_set import photo, photos
from skills.metrics import compute_all
from skills.metrics.faces import SAME_PERSON_COSINE, find_faces
from tests.metrics.conftest import hopper, jpeg

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)

INSTRUCTION = "Put a bowl of fruit on the table."


def ident(source: Image.Image, edited: Image.Image):
    return compute_all(source, edited, INSTRUCTION, metrics=["face_identity"])["face_identity"]


@pytest.fixture(scope="module")
def group() -> Image.Image:
    """The packaged photo of six people around a card table (insightface's t1.jpg)."""
    return photo("friends")[0]


def _face_box(name: str, index: int) -> list[int]:
    return photos()[name]["faces"][index]["box"]


WORKING = 1024 / 1280  # the metrics see the 1280 px group photo at 1024 px (boxes too)


def test_six_people_found_and_paired_one_to_one(group: Image.Image) -> None:
    value = ident(group, jpeg(group, 80))
    assert value.applicable and value.value > SAME_PERSON_COSINE
    d = value.details
    assert d["source_faces"] == 6 and d["edited_faces"] == 6
    assert len(d["pairs"]) == 6 and d["same_person_pairs"] == 6
    assert d["unmatched_source"] == [] and d["unmatched_edited"] == []
    assert d["lowest_pair"]["cosine"] >= SAME_PERSON_COSINE
    assert d["summary"].startswith("6 faces in the source, 6 in the edit; 6 paired (6 the same")


def test_one_person_replaced_shows_in_the_lowest_pair(group: Image.Image) -> None:
    edited = group.copy()
    left, top, right, bottom = _face_box("friends", 2)
    face = hopper().crop(tuple(_face_box("hopper", 0))).resize((right - left, bottom - top))
    edited.paste(face, (left, top))
    d = ident(group, edited).details
    assert d["source_faces"] == 6 and d["edited_faces"] == 6
    assert d["same_person_pairs"] == 5
    wrong = [p for p in d["pairs"] if not p["same_person"]]
    assert len(wrong) == 1 and wrong[0]["source"][0] == pytest.approx(left * WORKING, abs=20)
    assert d["lowest_pair"] == wrong[0] and "(5 the same person" in d["summary"]


def test_person_painted_out_is_unmatched(group: Image.Image) -> None:
    edited = group.copy()
    left, top, right, bottom = _face_box("friends", 4)
    ImageDraw.Draw(edited).rectangle((left - 20, top - 40, right + 20, bottom + 30), fill="gray")
    d = ident(group, edited).details
    assert d["source_faces"] == 6 and d["edited_faces"] == 5
    assert len(d["unmatched_source"]) == 1 and d["unmatched_source"][0][0] == pytest.approx(
        left * WORKING, abs=20
    )
    assert d["summary"].endswith("1 source face unmatched")


@pytest.mark.parametrize("degrees", [-40, 25, 40])
def test_tilted_face_is_found_and_kept(astronaut: Image.Image, degrees: int) -> None:
    tilted = astronaut.rotate(degrees, Image.Resampling.BILINEAR, fillcolor=(120, 120, 120))
    faces = find_faces(np.asarray(tilted))
    assert len(faces) == 1 and abs(faces[0].roll + degrees) < 12  # eye line measured
    value = ident(astronaut, tilted)
    assert value.value > SAME_PERSON_COSINE and value.details["same_person_pairs"] == 1


def test_new_person_in_the_edit_is_reported(astronaut: Image.Image) -> None:
    edited = astronaut.copy()
    edited.paste(hopper().crop(tuple(_face_box("hopper", 0))).resize((90, 90)), (400, 300))
    d = ident(astronaut, edited).details
    assert d["source_faces"] == 1 and d["edited_faces"] == 2
    assert len(d["unmatched_edited"]) == 1 and d["pairs"][0]["same_person"] is True
    assert d["summary"].endswith("1 new face in the edit")


def test_no_face_reports_the_count() -> None:
    value = ident(photo("coffee")[0], photo("chelsea")[0])
    assert not value.applicable and value.details["source_faces"] == 0


def test_docs_python_example_runs(group: Image.Image, tmp_path, monkeypatch, capsys) -> None:
    """The Python example of docs/faces.md, run as written on the packaged group photo."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "faces.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    group.save(tmp_path / "group.png")
    jpeg(group, 70).save(tmp_path / "group-edited.png")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/faces.md", "exec"), {})
    value, summary = capsys.readouterr().out.split(" ", 1)
    assert float(value) > SAME_PERSON_COSINE
    assert summary.startswith("6 faces in the source, 6 in the edit")
