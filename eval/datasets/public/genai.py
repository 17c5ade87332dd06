"""``genai-bench``: GenAI-Bench's text-to-image human alignment ratings, as downloaded.

The layout is the one t2v_metrics' ``GenAIBench_Image`` reads (the GenAI-Bench-527 folder,
``zhiqiulin/GenAI-Bench-527`` on Hugging Face; GenAI-Bench-1600's ``genai_image.json`` and
``genai_skills.json`` have the same names)::

    genai_image.json      {"00001": {"prompt": "...", "models": {"DALLE_3": [4, 5, 4], ...}}, ...}
    genai_skills.json     {"counting": [1, 17, ...], "negation": [...], ...}
    DALLE_3/00001.jpeg    one folder per model, one image per prompt id

Each (prompt, model) image is one item: a prompt-and-image submission whose prompt is also the
brief, scored by the ``avt_prompt_matching`` card (how faithfully the image shows what the
prompt asks for, 1–5); its label is the mean of the image's 1–5 human ratings, and the
individual ratings feed the human baseline. Skill tags (``genai_skills.json``: tag → prompt
numbers) are the slices the paper reports by; an item may carry several.

Example::

    items = GenAIBench().load(Path("GenAI-Image-527"))
    items[0].id        # 'DALLE_3/00001'
    items[0].labels    # {'alignment': 4.33}
"""

from __future__ import annotations

from pathlib import Path

from eval.datasets.base import EvalItem
from eval.datasets.public.base import JsonPath, PublicSet, expect, load_json
from eval.datasets.public.items import image_submission

ADVANCED = {"counting", "comparison", "differentiation", "negation", "universal", "advanced"}
"""The paper's advanced skills (the rest are basic); a prompt with one is an advanced prompt."""


class GenAIBench(PublicSet, name="genai-bench"):
    """Adapter for GenAI-Bench's image ratings (see the module docstring for the layout)."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, list[str]] = {}  # tag → item ids, filled by load()

    def load(self, data: Path) -> list[EvalItem]:
        """One item per (prompt, model) image listed in ``genai_image.json``."""
        self.check_files(data)
        prompts = self._prompts(data)
        tags = self._tags(data, set(prompts))
        items: list[EvalItem] = []
        for pid, (prompt, models) in prompts.items():
            level = "advanced" if any(pid in tags.get(t, ()) for t in ADVANCED) else "basic"
            for model, ratings in models.items():
                at = JsonPath(data / "genai_image.json") / pid / "models" / model
                image = self.data_path(data, f"{model}/{pid}.jpeg", at)
                if not image.is_file():
                    raise at.error(f"image {model}/{pid}.jpeg not found next to genai_image.json")
                item_id = f"{model}/{pid}"
                items.append(
                    EvalItem(
                        id=item_id,
                        submission=image_submission(
                            item_id, pid, prompt, str(image), model
                        ),
                        base_dir=data,
                        labels={"alignment": sum(ratings) / len(ratings)},
                        ratings={"alignment": {f"r{k}": v for k, v in enumerate(ratings)}},
                        slices={"model": model, "level": level},
                        group=pid,
                        key={"id": item_id, "prompt_id": pid, "model": model},
                    )
                )
        self.tags = {
            tag: [i.id for i in items if i.key["prompt_id"] in pids] for tag, pids in tags.items()
        }
        return items

    def slice_sets(self, items: list[EvalItem]) -> dict[str, dict[str, list[str]]]:
        """The skill tags (an item may have several), restricted to ``items``."""
        keep = {i.id for i in items}
        return {"skill": {t: [i for i in ids if i in keep] for t, ids in self.tags.items()}}

    @staticmethod
    def _prompts(data: Path) -> dict[str, tuple[str, dict[str, list[float]]]]:
        path = data / "genai_image.json"
        raw = expect(load_json(path), dict, JsonPath(path), "an object of prompt ids")
        out: dict[str, tuple[str, dict[str, list[float]]]] = {}
        for pid, entry in raw.items():
            at = JsonPath(path) / pid
            at.fields(entry, ("prompt", "models"), 'an object with "prompt" and "models"')
            prompt = expect(entry["prompt"], str, at / "prompt", "the prompt text")
            models = expect(entry["models"], dict, at / "models", "an object MODEL → ratings")
            checked: dict[str, list[float]] = {}
            for model, ratings in models.items():
                where = at / "models" / model
                expect(ratings, list, where, "a list of 1–5 ratings")
                if not ratings:
                    raise where.error("no ratings")
                for k, r in enumerate(ratings):
                    expect(r, (int, float), where / k, "a rating 1–5")
                    if not 1 <= r <= 5:
                        raise (where / k).error(f"rating {r} outside 1–5")
                checked[model] = [float(r) for r in ratings]
            out[pid] = (prompt, checked)
        return out

    @staticmethod
    def _tags(data: Path, known: set[str]) -> dict[str, set[str]]:
        """tag → prompt ids (the file lists prompt numbers; ids are them zero-padded to 5)."""
        path = data / "genai_skills.json"
        raw = expect(load_json(path), dict, JsonPath(path), "an object of skill tags")
        out: dict[str, set[str]] = {}
        for tag, numbers in raw.items():
            at = JsonPath(path) / tag
            expect(numbers, list, at, "a list of prompt numbers")
            ids = set()
            for k, n in enumerate(numbers):
                expect(n, int, at / k, "a prompt number")
                ids.add(f"{n:05d}")  # as t2v_metrics pads them
            out[tag] = ids & known  # a subset download keeps the tags of its own prompts
        return out
