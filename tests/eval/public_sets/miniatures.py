"""Miniatures of the public sets, written in each set's published layout and field names: a
handful of items with tiny generated images. Harness only (tests build them in temp folders).
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

from PIL import Image

GENAI_MODELS = ("DALLE_3", "SDXL_Turbo", "Midjourney_6")
GENAI_PROMPTS = {
    "00001": "a red cube on top of a blue sphere",
    "00002": "three cats and no dogs on a sofa",
    "00003": "a man taller than the tree beside him",
    "00004": "a bicycle leaning on a yellow wall",
}
GENAI_SKILLS = {
    "attribute": [1, 4],
    "spatial relation": [1],
    "counting": [2],
    "negation": [2],
    "comparison": [3],
    "scene": [4, 3],
}


def tiny_image(path: Path, seed: int, fmt: str = "JPEG") -> None:
    """An 8×8 image of one colour picked by ``seed``."""
    rng = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    colour = tuple(rng.randrange(256) for _ in range(3))
    Image.new("RGB", (8, 8), colour).save(path, fmt)


def genai_bench(root: Path, seed: int = 0) -> Path:
    """GenAI-Bench as t2v_metrics reads it: genai_image.json, genai_skills.json and
    MODEL/ID.jpeg; three human ratings (1–5) per image."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    entries = {}
    for n, (pid, prompt) in enumerate(GENAI_PROMPTS.items()):
        models = {}
        for k, model in enumerate(GENAI_MODELS):
            models[model] = [rng.randint(1, 5) for _ in range(3)]
            tiny_image(root / model / f"{pid}.jpeg", 10 * n + k)
        entries[pid] = {"prompt": prompt, "models": models}
    (root / "genai_image.json").write_text(json.dumps(entries, indent=2), encoding="utf-8")
    (root / "genai_skills.json").write_text(json.dumps(GENAI_SKILLS), encoding="utf-8")
    return root


HPD_PROMPTS = (
    ("a lighthouse at dusk, oil painting", [1, 3, 2]),
    ("a corgi astronaut, 3d render", [2, 1, 2]),
    ("a bowl of ramen, photo", [1, 2, 3, 4]),
)


def hpdv2(root: Path) -> Path:
    """The HPD v2 test split as the HPSv2 README documents it: test.json (prompt, image_path,
    rank, raw_annotations) and the images in test/, as its Data Structure section shows."""
    root.mkdir(parents=True, exist_ok=True)
    entries, k = [], 0
    for prompt, ranks in HPD_PROMPTS:
        names = []
        for _ in ranks:
            names.append(f"{k:05d}.jpg")
            tiny_image(root / "test" / names[-1], k)
            k += 1
        raw = [{"rank": ranks, "user_hash": "u1"}, {"rank": ranks, "user_hash": "u2"}]
        entries.append(
            {"prompt": prompt, "image_path": names, "rank": ranks, "raw_annotations": raw}
        )
    (root / "test.json").write_text(json.dumps(entries, indent=1), encoding="utf-8")
    return root


TIFA_TEXTS = {
    "coco_669925": "A Christmas tree with lights and teddy bear",
    "drawbench_52": "A red colored car.",
    "partiprompt_17": "a fox reading a newspaper",
}
TIFA_MODELS = ("mini_dalle", "stable_diffusion_v1_5", "vq_diffusion")
TIFA_METRICS = ("clipscore_vitb32", "tifa_mplug-large")


def tifa(root: Path, seed: int = 1) -> Path:
    """TIFA v1.0's human_annotations/ as the TIFA repository publishes it:
    human_annotations.json, human_annotations_with_scores.json and the images."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    plain, scored = {}, {}
    for n, (text_id, text) in enumerate(TIFA_TEXTS.items()):
        for k, model in enumerate(TIFA_MODELS):
            key = f"{text_id}_{model}"
            scores = [rng.randint(1, 5), rng.randint(1, 5)]
            entry = {
                "text_id": text_id,
                "image_path": f"{key}.jpg",
                "text": text,
                "human_scores": scores,
                "human_avg": sum(scores) / 2,
            }
            plain[key] = entry
            scored[key] = {
                **entry,
                "clipscore_vitb32": round(rng.uniform(20, 35), 3),
                "tifa_mplug-large": rng.choice([0.25, 0.5, 0.75, 1.0]),
            }
            tiny_image(root / f"{key}.jpg", 100 + 10 * n + k)
    (root / "human_annotations.json").write_text(json.dumps(plain, indent=4), encoding="utf-8")
    (root / "human_annotations_with_scores.json").write_text(
        json.dumps(scored, indent=4), encoding="utf-8"
    )
    return root


AGIQA_ROWS = (
    ("AttnGAN_normal_000.jpg", "statue of a man", "", "", ""),
    ("AttnGAN_normal_060.jpg", "artwork with only triangles, anime style", "", "", "anime style"),
    (
        "AttnGAN_normal_120.jpg",
        "die cut sticker of a pair of lips , warm color",
        "warm color",
        "",
        "",
    ),
    ("midjourney_normal_001.jpg", "a tray of sushi", "", "", ""),
    (
        "midjourney_normal_061.jpg",
        "a yellow rendition of venom, sci-fi style",
        "",
        "",
        "sci-fi style",
    ),
    ("sd1.5_lowstep_002.jpg", "man lost in space", "", "", ""),
    ("sd1.5_lowstep_003.jpg", "a cosmic universe", "", "", ""),
)


def agiqa3k(root: Path, seed: int = 2) -> Path:
    """AGIQA-3K as the AGIQA-3k-Database repository publishes it: data.csv (name, prompt,
    adj1, adj2, style, mos_quality, std_quality, mos_align, std_align) and the images."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    lines = ["name,prompt,adj1,adj2,style,mos_quality,std_quality,mos_align,std_align"]
    for k, (name, prompt, adj1, adj2, style) in enumerate(AGIQA_ROWS):
        mos = [round(rng.uniform(0.2, 4.5), 9) for _ in range(4)]
        quoted = f'"{prompt}"' if "," in prompt else prompt
        lines.append(f"{name},{quoted},{adj1},{adj2},{style},{mos[0]},{mos[1]},{mos[2]},{mos[3]}")
        tiny_image(root / name, 200 + k)
    (root / "data.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


EVALMUSE_ENTRIES = (
    (
        "p001",
        "a red cat on a blue chair",
        "real",
        {"cat (animal)": [1, 1, 1], "red (color)": [1, 0, 0], "blue chair (object)": [1, 1, 0]},
    ),
    (
        "p002",
        "three apples next to a mug",
        "real",
        {
            "apples (object)": [1, 1, 1],
            "three (counting)": [0, 0, 1],
            "next to (spatial)": [1, 1, 1],
        },
    ),
    (
        "p003",
        "a neon sign saying OPEN",
        "synth",
        {"neon sign (object)": [1, 1, 1], "OPEN (text)": [0, 0, 0]},
    ),
    (
        "p003",
        "a neon sign saying OPEN",
        "synth",
        {"neon sign (object)": [1, 0, 1], "OPEN (text)": [1, 1, 1]},
    ),
)


def evalmuse(root: Path, seed: int = 3) -> Path:
    """EvalMuse-40k as its dataset card describes it: train_list.json (prompt_id, prompt, type,
    img_path, total_score, element_score, promt_meaningless, split_confidence,
    attribute_confidence, fidelity_label; one label per annotator) and images/."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    entries = []
    for k, (pid, prompt, kind, elements) in enumerate(EVALMUSE_ENTRIES):
        img = f"images/{pid}_{k}.png"
        tiny_image(root / img, 300 + k, "PNG")
        entries.append(
            {
                "prompt_id": pid,
                "prompt": prompt,
                "type": kind,
                "img_path": img,
                "total_score": [rng.randint(1, 5) for _ in range(3)],
                "element_score": elements,
                "promt_meaningless": [0, 0, 0],
                "split_confidence": [0, 0, 0],
                "attribute_confidence": [1, 1, 1],
                "fidelity_label": ["no", "no", "no"],
            }
        )
    (root / "train_list.json").write_text(json.dumps(entries, indent=4), encoding="utf-8")
    return root


PICKAPIC_ROWS = (  # caption, label_0, label_1, model_0, model_1
    ("a jedi duck holding a lightsaber", 1.0, 0.0, "sdxl", "sd21"),
    ("a square green owl made of clay", 0.0, 1.0, "sdxl", "dreamlike"),
    ("a butterfly above an ocean", 0.5, 0.5, "sd21", "sdxl"),
    ("insanely detailed portrait, wise man", 1.0, 0.0, "dreamlike", "sd21"),
    ("a bird with eight spider legs", 0.0, 1.0, "sdxl", "sd21"),
)


def jpeg_bytes(seed: int) -> bytes:
    """A tiny JPEG, as the parquet shards hold them."""
    buf = io.BytesIO()
    rng = random.Random(seed)
    Image.new("RGB", (8, 8), tuple(rng.randrange(256) for _ in range(3))).save(buf, "JPEG")
    return buf.getvalue()


def pickapic_columns(rows: tuple = PICKAPIC_ROWS) -> dict[str, list]:
    """The columns of Pick-a-Pic v2's parquet shards (the names the PickScore code reads)."""
    cols: dict[str, list] = {
        k: []
        for k in (
            "are_different", "best_image_uid", "caption", "created_at", "has_label",
            "image_0_uid", "image_0_url", "image_1_uid", "image_1_url", "jpg_0", "jpg_1",
            "label_0", "label_1", "model_0", "model_1", "ranking_id", "user_id",
            "num_example_per_prompt",
        )
    }  # fmt: skip
    for n, (caption, l0, l1, m0, m1) in enumerate(rows):
        uid = [f"img-{n}-0", f"img-{n}-1"]
        best = "" if l0 == 0.5 else uid[0] if l0 == 1 else uid[1]
        values = (
            True, best, caption, f"2023-05-0{n + 1} 10:00:00", True, uid[0],
            f"https://example.invalid/{uid[0]}.png", uid[1], f"https://example.invalid/{uid[1]}.png",
            jpeg_bytes(400 + 2 * n), jpeg_bytes(401 + 2 * n), l0, l1, m0, m1, 1000 + n, 7 + n, 1,
        )  # fmt: skip
        for key, value in zip(cols, values, strict=True):
            cols[key].append(value)
    return cols


def pickapic(root: Path, rows: tuple = PICKAPIC_ROWS) -> Path:
    """Pick-a-Pic v2 as the Hugging Face dataset is downloaded: data/test_unique-*.parquet
    with the images inside as JPEG bytes (and one unlabelled row, left out)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = pickapic_columns(rows)
    extra = pickapic_columns((("an unlabelled prompt", 0.5, 0.5, "sdxl", "sd21"),))
    extra["has_label"] = [False]
    for key in cols:
        cols[key] += extra[key]
    (root / "data").mkdir(parents=True, exist_ok=True)
    path = root / "data" / "test_unique-00000-of-00001-ecef20a3469ae6e6.parquet"
    pq.write_table(pa.table(cols), path)
    return root


RICHHF_RECORDS = (  # prompt, the 0/1 label per word (0: misaligned), 4 scores
    ("a red fox reading a newspaper", "1 0 1 1 1 0", (0.8, 0.6, 0.5, 0.7)),
    ("two cats on a blue sofa", "1 1 1 1 1 1", (0.4, 0.7, 1.0, 0.6)),
    ("a castle made of candy, at night", "1 1 1 1 0 1 0", (0.9, 0.9, 0.3, 0.8)),
    ("an astronaut riding a horse", "1 1 1 1", (0.2, 0.3, 0.9, 0.25)),  # 5 words, 4 labels
)


def richhf(root: Path) -> Path:
    """RichHF-18K as cloned (test.tfrecord: filename, the four scores, the word labels, the
    heatmaps) with Pick-a-Pic v1's test shards in pickapic_v1/data/ (the images and prompts;
    one unrelated pair besides)."""
    from tests.eval.public_sets.tf_example import write_tfrecord

    rows = [(p, 1.0, 0.0, "sdxl", "sd21") for p, _, _ in RICHHF_RECORDS]
    rows.append(("an unrelated prompt", 0.0, 1.0, "sd21", "sdxl"))
    cols = pickapic_columns(tuple(rows))
    examples = []
    for n, (_, marks, (art, aes, mis, ovr)) in enumerate(RICHHF_RECORDS):
        side = n % 2  # the labelled image is image 0 or image 1 of its pair
        uid = cols[f"image_{side}_uid"][n]
        examples.append(
            {
                "filename": [f"pickapic_v1/test/{uid}.png".encode()],
                "artifact_score": [art],
                "aesthetics_score": [aes],
                "misalignment_score": [mis],
                "overall_score": [ovr],
                "prompt_misalignment_label": [marks.encode()],
                "artifact_map": [jpeg_bytes(900 + n)],
                "misalignment_map": [jpeg_bytes(950 + n)],
            }
        )
    write_tfrecord(root / "test.tfrecord", examples)
    import pyarrow as pa
    import pyarrow.parquet as pq

    half = 3  # two shards, as the split is published in several
    shards = root / "pickapic_v1" / "data"
    shards.mkdir(parents=True, exist_ok=True)
    for k, part in enumerate((slice(0, half), slice(half, None))):
        table = pa.table({key: values[part] for key, values in cols.items()})
        pq.write_table(table, shards / f"test-0000{k}-of-00002-abc{k}.parquet")
    return root
