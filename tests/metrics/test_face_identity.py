"""face_identity: same person stays high, another person's face drops, no face → n/a."""

from __future__ import annotations

import threading

import pytest
from PIL import Image

from skills.metrics import compute_all
from skills.metrics.faces import DLIB_SAME_PERSON, find_faces, models
from tests.metrics.conftest import hopper, hue_rotate, jpeg, photo, swap_face, yellow_tint

INSTRUCTION = "Add a small badge to the suit."


def ident(source: Image.Image, edited: Image.Image, instruction: str = INSTRUCTION):
    return compute_all(source, edited, instruction, metrics=["face_identity"])["face_identity"]


def test_same_person_after_appearance_edits(astronaut: Image.Image) -> None:
    for edited in (jpeg(astronaut), yellow_tint(astronaut), hue_rotate(astronaut)):
        value = ident(astronaut, edited)
        assert value.applicable and value.value > 0.96
        assert value.details["dlib_same_person"] is True
        assert value.details["euclidean_distance"] < DLIB_SAME_PERSON
        assert value.details["source_faces"] == 1  # the suit badges are not faces


def test_face_replaced_by_another_person(astronaut: Image.Image) -> None:
    same = ident(astronaut, jpeg(astronaut)).value
    swapped = ident(astronaut, swap_face(astronaut))
    assert swapped.applicable and swapped.details["edited_faces"] >= 1
    assert swapped.value < 0.93 and swapped.value < same - 0.05
    assert swapped.details["dlib_same_person"] is False
    whole = ident(astronaut, hopper())  # a different photo of a different person
    assert whole.value < 0.93 and whole.details["euclidean_distance"] > DLIB_SAME_PERSON


def test_face_removed_counts_as_lost(astronaut: Image.Image) -> None:
    value = ident(astronaut, photo("coffee"))
    assert value.applicable and value.value == 0.0 and value.details["edited_faces"] == 0


def test_no_face_in_source_is_not_applicable() -> None:
    value = ident(photo("coffee"), photo("chelsea"))
    assert not value.applicable and value.value is None
    assert "no face" in value.reason


@pytest.mark.parametrize(
    "instruction",
    [
        "Replace the woman with a different person.",
        "Swap her face with a celebrity's.",
        "Turn her into an anime character.",
        "Make it a watercolor painting.",
        "Remove the person from the photo.",
    ],
)
def test_not_applicable_instructions(astronaut: Image.Image, instruction: str) -> None:
    value = ident(astronaut, swap_face(astronaut), instruction)
    assert not value.applicable and value.reason


def test_models_load_once_across_threads(astronaut: Image.Image) -> None:
    seen: list[object] = []
    threads = [threading.Thread(target=lambda: seen.append(models())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(m is seen[0] for m in seen) and seen[0] is models()
    import numpy as np

    faces = find_faces(np.asarray(astronaut))
    assert len(faces) == 1 and faces[0].descriptor.shape == (128,)
