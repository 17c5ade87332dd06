"""Fixtures for memory tests: exemplar files with real prompts and generated images."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

PROMPTS = [
    "A four-panel comic strip about a sleepy office worker and a red alarm clock",
    "Watercolour landscape of misty mountains at sunrise, soft pastel palette",
    "Product photo of a glass perfume bottle on black velvet, rim lighting",
    "Minimalist flat vector logo of a fox head in orange and white",
    "Cyberpunk street market at night in the rain, neon signs, reflections",
    "Children's book illustration of a turtle reading under a mushroom",
    "Isometric 3D render of a tiny bakery with a striped awning",
    "Black and white street photograph of an old man feeding pigeons",
]


def prompt_records(n: int = len(PROMPTS), category: str = "CO", start: int = 0) -> list[dict]:
    dims = [
        "instructional_clarity",
        "creative_elaboration",
        "terminology_proficiency",
        "intent_formalization",
    ]
    return [
        {
            "id": f"p{i}",
            "category": category,
            "task_brief": f"brief {i}",
            "modality": "prompt",
            "prompt": PROMPTS[i % len(PROMPTS)] + ("" if i < 8 else f" #{i}"),
            "scores": {d: 1 + (i + k) % 5 for k, d in enumerate(dims)},
            "rationales": {dims[0]: f"rationale {i}"},
        }
        for i in range(start, start + n)
    ]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def draw_image(kind: int, size: int = 96) -> Image.Image:
    img = Image.new("RGB", (size, size), ["white", "black", "navy", "yellow"][kind % 4])
    d = ImageDraw.Draw(img)
    if kind % 3 == 0:
        d.ellipse([10, 10, size - 10, size - 10], fill=["red", "green", "blue"][kind % 3])
    elif kind % 3 == 1:
        for x in range(0, size, 12):
            d.rectangle([x, 0, x + 5, size], fill="orange")
    else:
        d.polygon([(0, size), (size // 2, 0), (size, size)], fill="purple")
    return img


@pytest.fixture
def prompt_file(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "prompts.jsonl", prompt_records())


@pytest.fixture
def image_file(tmp_path: Path) -> Path:
    folder = tmp_path / "imgs"
    folder.mkdir()
    rows = []
    for i in range(6):
        draw_image(i).save(folder / f"im{i}.png")
        rows.append(
            {
                "id": f"i{i}",
                "category": "OE",
                "task_brief": "",
                "modality": "image",
                "image": f"imgs/im{i}.png",
                "prompt": f"picture {i}",
                "scores": {"mood_atmosphere": 1 + i % 5, "visual_composition": 5 - i % 5},
            }
        )
    return write_jsonl(tmp_path / "images.jsonl", rows)
