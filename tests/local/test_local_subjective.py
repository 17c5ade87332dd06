"""Local subjective estimates from an exemplar memory, through the engine and the predictor."""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFilter

from judge.engine import Judge
from memory.encoders import DEFAULT_TEXT_ENCODER, get_encoder
from memory.exemplar import ExemplarRecord
from memory.store import MemoryStore
from skills.local import NEEDS_VLM
from skills.local import predictor as predictor_mod
from skills.local.predictor import MemoryModel, exemplar_features
from skills.registry import default_registry
from tests.conftest import submission
from tests.local.conftest import data_url
from tests.memory.conftest import prompt_records

MEMORY = "local-test-image"
ABSENT = "local-test-absent"
SCORE = {"crisp": 4.6, "flat": 3.0, "noisy": 1.4}  # appeal by family
GENERATOR = {"crisp": "alpha", "flat": "beta", "noisy": "gamma"}
SUBJECTS = ["cat", "harbour", "robot", "garden"]

CARD = """
name = "{name}"
kind = "subjective-rubric"
version = "0.1.0"
modality = "image"
categories = ["OE", "CO", "IM"]
template = "subjective.md"
memory = "{memory}"
enabled = false

[[dimensions]]
name = "{dim}"
title = "Appeal"
definition = "How much a typical viewer likes looking at the image."

[dimensions.anchors]
"1" = "Off-putting."
"2" = "Unattractive."
"3" = "Ordinary."
"4" = "Attractive."
"5" = "Very attractive."
"""


def family_image(family: str, seed: int, size: int = 128) -> Image.Image:
    """Three visually distinct looks: crisp colourful shapes, blurred stripes, grey noise."""
    rng = random.Random(seed)
    if family == "crisp":
        img = Image.new("RGB", (size, size), (rng.randint(200, 255), rng.randint(180, 230), 60))
        d = ImageDraw.Draw(img)
        for _ in range(4):
            x, y = rng.randint(0, size - 40), rng.randint(0, size - 40)
            colour = rng.choice(["red", "blue", "green", "purple"])
            d.ellipse([x, y, x + 36, y + 36], fill=colour, outline="black", width=3)
        return img
    if family == "flat":
        img = Image.new("RGB", (size, size), "navy")
        d = ImageDraw.Draw(img)
        for x in range(0, size, 12):
            d.rectangle([x, 0, x + 5, size], fill=(rng.randint(150, 200),) * 3)
        return img.filter(ImageFilter.GaussianBlur(2))
    noise = np.random.default_rng(seed).integers(0, 255, (size, size), dtype=np.uint8)
    return Image.fromarray(noise, "L").convert("RGB").filter(ImageFilter.GaussianBlur(1))


def records(folder: Path) -> list[ExemplarRecord]:
    """4 prompts x 3 generators; each generator has its own look and its own score level."""
    (folder / "imgs").mkdir(parents=True)
    out = []
    for p, subject in enumerate(SUBJECTS):
        for fam, level in SCORE.items():
            rid = f"{fam}-{p}"
            family_image(fam, p).save(folder / "imgs" / f"{rid}.png")
            out.append(
                ExemplarRecord(
                    id=rid,
                    category="CO",
                    modality="image",
                    image=f"imgs/{rid}.png",
                    prompt=f"an illustration of a {subject}",
                    scores={"appeal": level + 0.1 * (p % 3 - 1)},
                    meta={"prompt_id": f"p{p}", "generator": GENERATOR[fam]},
                )
            )
    return out


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("local-memory")
    MemoryStore(root / "store").build(MEMORY, records(root / "src"), base_dir=root / "src")
    return root / "store"


@pytest.fixture(scope="module")
def card_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("local-cards")
    (folder / "appeal.toml").write_text(
        CARD.format(name="local_test_appeal", memory=MEMORY, dim="appeal")
    )
    absent = CARD.format(name="local_test_absent", memory=ABSENT, dim="absent_appeal")
    (folder / "absent.toml").write_text(absent)
    return folder


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def judge(store_dir: Path, card_dir: Path) -> Judge:
    return Judge(
        registry=default_registry([card_dir]),
        backend="local",
        memory_dir=str(store_dir),
        skills=["local_test_appeal", "local_test_absent"],
    )


def score_image(judge: Judge, img: Image.Image, **overrides):
    sub = submission("CO", n_checks=1)
    sub["images"] = [data_url(img)]
    return judge.score(sub, **overrides)


@pytest.fixture(scope="module")
def memory(store_dir: Path):
    return MemoryStore(store_dir).load(MEMORY)


# ------------------------------------------------------------------------ through the engine


@pytest.mark.slow
def test_high_scoring_look_gets_a_higher_estimate(judge, offline):
    est = {
        fam: score_image(judge, family_image(fam, 101)).subjective["image"]["appeal"].score
        for fam in SCORE
    }
    assert all(v is not None for v in est.values()), est
    assert est["crisp"] > est["flat"] > est["noisy"], est
    assert est["crisp"] - est["noisy"] > 1.5, est
    assert all(1.0 <= v <= 5.0 for v in est.values()), est
    assert offline == []


def test_rationale_names_the_predictor_and_the_exemplars(judge, memory):
    dim = score_image(judge, family_image("crisp", 102)).subjective["image"]["appeal"]
    assert dim.reason is None
    assert "Local estimate, no judge model" in dim.rationale
    assert re.search(r"(k-NN on|ridge regression on|generator-look classifier)", dim.rationale), (
        dim.rationale
    )
    assert re.search(r"confidence \d\.\d\d", dim.rationale), dim.rationale
    assert MEMORY in dim.rationale
    assert "Spearman" in dim.rationale
    assert dim.skill == "local_test_appeal@0.1.0"
    ids = {r.id for r in memory.records}
    assert dim.exemplars, "the nearest exemplars must be reported"
    assert {e.id for e in dim.exemplars} <= ids
    assert all(e.id in dim.rationale for e in dim.exemplars)


def test_excluded_exemplars_are_never_reported(judge, memory):
    img = family_image("crisp", 103)
    before = score_image(judge, img).subjective["image"]["appeal"]
    group = {r.id: r.meta["prompt_id"] for r in memory.records}
    top_group = group[before.exemplars[0].id]
    after = score_image(judge, img, exclude_exemplars={"prompt_id": top_group})
    dim = after.subjective["image"]["appeal"]
    assert dim.score is not None and 1.0 <= dim.score <= 5.0
    assert dim.exemplars
    assert all(group[e.id] != top_group for e in dim.exemplars), dim.exemplars


def test_card_without_a_memory_is_unscored_with_the_reason(judge):
    result = score_image(judge, family_image("flat", 104))
    dim = result.subjective["image"]["absent_appeal"]
    assert dim.score is None
    assert dim.skill == "local_test_absent@0.1.0"
    assert "needs a vision-language model" in dim.reason
    assert NEEDS_VLM in dim.reason
    assert ABSENT in dim.reason
    assert dim.exemplars == []
    assert result.provenance.memories[ABSENT].startswith("absent")
    assert result.status == "partial"


def test_provenance_is_local(judge):
    result = score_image(judge, family_image("noisy", 105))
    assert result.provenance.judge_models == ["local"]
    assert result.provenance.options["backend"] == "local"
    assert result.provenance.memories[MEMORY].startswith("v1")
    assert result.usage.llm_calls == 0
    assert result.status in {"scored", "partial"}


DIMS = [
    "instructional_clarity",
    "creative_elaboration",
    "terminology_proficiency",
    "intent_formalization",
]
RICH = [
    "Watercolour landscape of misty mountains at sunrise, soft pastel palette, {}",
    "Product photo of a perfume bottle on black velvet, rim lighting, 85mm, {}",
    "Isometric 3D render of a tiny bakery with a striped awning, warm light, {}",
]
POOR = ["thing {}", "nice picture {} pls", "make it good {}"]


def themed_prompt_rows() -> list[ExemplarRecord]:
    """Detailed prompts score high, vague ones low: a memory with a real signal."""
    rows = []
    for i in range(12):
        rich = i % 2 == 0
        text = (RICH if rich else POOR)[i % 3].format(f"variant {i}")
        rows.append(
            ExemplarRecord.model_validate(
                {
                    "id": f"t{i}",
                    "category": "CO",
                    "modality": "prompt",
                    "prompt": text,
                    "scores": {d: (4.5 if rich else 1.5) + 0.1 * (i % 3) for d in DIMS},
                    "meta": {"task_id": f"task{i % 6}"},
                }
            )
        )
    return rows


def test_prompt_memory_scores_the_prompt_side(tmp_path, offline):
    rows = themed_prompt_rows()
    MemoryStore(tmp_path / "store").build("prompt-CO", rows, base_dir=tmp_path)
    sub = submission("CO", n_checks=1, n_images=0, prompt=RICH[0].format("new"))
    result = Judge(backend="local", memory_dir=str(tmp_path / "store")).score(sub)
    prompt_side = result.subjective["prompt"]
    assert set(prompt_side) >= {"instructional_clarity", "creative_elaboration"}
    for dim in prompt_side.values():
        assert dim.score is not None and 1.0 <= dim.score <= 5.0, dim
        assert "Local estimate, no judge model" in dim.rationale
        assert dim.exemplars
    assert result.provenance.memories["prompt-CO"].startswith("v1")
    assert offline == []


# ------------------------------------------------------------------------------ the predictor


@pytest.fixture(scope="module")
def model(memory, tmp_path_factory: pytest.TempPathFactory) -> MemoryModel:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JUDGE_CACHE_DIR", str(tmp_path_factory.mktemp("model-cache")))
        return MemoryModel(memory, get_encoder(DEFAULT_TEXT_ENCODER))


def test_memory_model_chooses_a_predictor_by_cross_validation(model):
    assert {"memory", "prompt"} <= set(model.spaces)
    assert model.members == ["memory", "prompt", "quality", "prototype"]
    assert model.classes is not None  # the exemplars name their generator
    choice = model.choices()["appeal"]
    assert choice.spaces
    assert set(choice.spaces) <= set(model.members)
    assert choice.cv_spearman is not None and choice.cv_spearman > 0.5
    assert choice.n == len(SCORE) * len(SUBJECTS)
    assert choice.slope > 0 and choice.usable
    assert choice.label.count(" + ") == len(choice.spaces) - 1
    assert len(choice.centre) == len(choice.scale) == len(choice.spaces) == len(choice.weights)
    assert all(w > 0 for w in choice.weights)


@pytest.mark.slow
def test_predict_ranks_families_and_respects_exclusions(model, memory):
    def predict(fam: str, exclude: set[str] = frozenset()):
        img = family_image(fam, 200)
        q = model.query_vectors(memory.embed_query(img), img, "an illustration of a fox")
        return model.predict(q, ["appeal", "not_a_dimension"], set(exclude))

    hi, lo = predict("crisp"), predict("noisy")
    assert "not_a_dimension" not in hi
    assert hi["appeal"][0] > lo["appeal"][0]
    banned = {r.id for r in memory.records if r.meta["prompt_id"] == "p0"}
    value, _, neighbours = predict("crisp", banned)["appeal"]
    assert 1.0 <= value <= 5.0
    assert neighbours and not {i for i, _ in neighbours} & banned
    everything = {r.id for r in memory.records}
    assert predict("crisp", everything) == {}


def test_exemplar_features_are_cached_on_disk(memory, _cache_dir, monkeypatch):
    first = exemplar_features(memory)
    assert first.shape[0] == len(memory.records)
    files = list(_cache_dir.glob("features-*.npy"))
    assert len(files) == 1
    assert memory.manifest.checksum[:24] in files[0].name

    def recompute(*args, **kwargs):
        raise AssertionError("features recomputed despite the cache")

    monkeypatch.setattr(predictor_mod, "image_features", recompute)
    second = exemplar_features(memory)
    np.testing.assert_array_equal(first, second)


@pytest.mark.slow
def test_prototype_only_predictor_still_reports_its_nearest_exemplars(memory, _cache_dir):
    m = MemoryModel(memory)
    chosen = m.choices()  # the cached dict: replacing an entry changes what predict uses
    chosen["appeal"] = dataclasses.replace(
        chosen["appeal"], spaces=("prototype",), centre=(3.0,), scale=(1.0,), weights=(1.0,)
    )
    img = family_image("crisp", 300)
    q = m.query_vectors(memory.embed_query(img), img, None)
    value, choice, neighbours = m.predict(q, ["appeal"], set())["appeal"]
    assert choice.spaces == ("prototype",)
    assert 1.0 <= value <= 5.0
    # the Result reports these as the exemplars behind the score ("Nearest exemplars: ...")
    assert neighbours, "a prototype-only estimate reports no exemplars at all"


def test_memory_without_signal_gives_no_estimate(tmp_path, offline):
    """Scores unrelated to the prompts: the honest answer is unscored, not the mean."""
    rows = [ExemplarRecord.model_validate(r) for r in prompt_records(12)]
    MemoryStore(tmp_path / "store").build("prompt-CO", rows, base_dir=tmp_path)
    sub = submission("CO", n_checks=1, n_images=0, prompt=rows[0].prompt)
    result = Judge(backend="local", memory_dir=str(tmp_path / "store")).score(sub)
    unscored = [d for d in result.subjective["prompt"].values() if d.score is None]
    assert unscored, "a memory with no cross-validated signal must not produce estimates"
    assert all(
        ("no signal" in d.reason or "too small" in d.reason) and NEEDS_VLM in d.reason
        for d in unscored
    )
    assert offline == []
