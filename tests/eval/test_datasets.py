"""Dataset adapters: avt (tmp fixture and the real dev split), expert-jsonl, csv; the registry."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from PIL import Image

from eval.datasets import DATASETS, get_dataset
from eval.datasets.avt import AvtDataset
from eval.datasets.base import Target
from eval.datasets.csv_table import CsvDataset, column_pairs, parse_columns
from eval.datasets.expert_jsonl import ExpertJsonlDataset
from judge.cli.main import main
from tests.eval.conftest import AVT_DEV, BLANK_APPEAL2, EXPERT, read_csv, require_dev, write_csv

AVT_TARGETS = ["prompt_matching", "appeal", "realism", "quality", "appeal2"]

# ------------------------------------------------------------------------------ registry


def test_registry_names_and_unknown_name_suggests_a_close_match() -> None:
    assert sorted(DATASETS) == [
        "agiqa-3k", "avt", "csv", "edit-ratings", "evalmuse", "expert-jsonl", "genai-bench",
        "hpdv2", "pickapic", "richhf", "tifa", "votes",
    ]  # fmt: skip
    assert isinstance(get_dataset("avt"), AvtDataset)
    with pytest.raises(KeyError, match=r"unknown dataset 'avtt'; did you mean 'avt'"):
        get_dataset("avtt")
    with pytest.raises(KeyError, match=r"did you mean 'expert-jsonl'"):
        get_dataset("expert_jsonl")
    names = (
        "agiqa-3k, avt, csv, edit-ratings, evalmuse, expert-jsonl, genai-bench, "
        "hpdv2, pickapic, richhf, tifa, votes"
    )
    with pytest.raises(KeyError, match=r"available: " + names):
        get_dataset("zzzzzz")


def test_cli_unknown_dataset_exits_2_with_a_suggestion(tmp_path: Path, capsys) -> None:
    rc = main(
        ["meta-eval", "--dataset", "exprt-jsonl", "--data", str(EXPERT), "--out", str(tmp_path)]
    )
    assert rc == 2
    err = capsys.readouterr().err
    assert "unknown dataset 'exprt-jsonl'" in err and "did you mean 'expert-jsonl'" in err


# ------------------------------------------------------------------------------ avt


def test_avt_targets_and_skills() -> None:
    ds = AvtDataset()
    assert [t.name for t in ds.targets] == AVT_TARGETS
    assert all(t.modality == "image" for t in ds.targets)
    # study 2's appeal is predicted by the appeal card
    assert {t.name: t.dimension for t in ds.targets}["appeal2"] == "appeal"
    assert ds.group_key == "prompt_id"
    assert ds.skills == ["avt_prompt_matching", "avt_appeal", "avt_realism", "avt_quality"]


def test_target_reads_the_prediction_from_the_result() -> None:
    t = Target("appeal2", "image", "appeal")
    result = {"subjective": {"image": {"appeal": {"score": 4}}, "prompt": {}}}
    assert t.read(result) == 4.0
    assert t.read({"subjective": {"image": {"appeal": {"score": None, "reason": "x"}}}}) is None
    assert t.read({}) is None


def test_avt_adapter_on_the_tmp_fixture(split_a: Path) -> None:
    _, rows = read_csv(split_a / "labels.csv")
    items = AvtDataset().load(split_a)
    assert [i.id for i in items] == [r["image"] for r in rows]
    assert len(items) == 8
    by_id = {i.id: i for i in items}
    for r in rows:
        item = by_id[r["image"]]
        assert item.key == {"image": r["image"]}
        assert item.group == r["prompt_id"]
        assert item.base_dir == split_a
        assert item.slices == {"generator": r["generator"], "real_photo": "no"}
        # labels are the published means, untouched
        for t in ("prompt_matching", "appeal", "realism", "quality"):
            assert item.labels[t] == pytest.approx(float(r[f"{t}_mean"]))
        # appeal2 only where the CSV has it
        if r["image"] in BLANK_APPEAL2:
            assert "appeal2" not in item.labels
        else:
            assert item.labels["appeal2"] == pytest.approx(float(r["appeal2_mean"]))
        # the submission: prompt-only OE task, absolute image path, no label anywhere
        sub = item.submission
        assert sub["id"] == r["image"]
        assert sub["prompt"] == r["prompt"] and sub["task"]["brief"] == r["prompt"]
        assert sub["task"]["category"] == "OE" and sub["task"]["checklist"] == []
        assert sub["task"]["id"] == r["prompt_id"]
        assert sub["backend"] == r["generator"]
        assert Path(sub["images"][0]).is_absolute()
        assert Path(sub["images"][0]) == (split_a / r["image"]).resolve()
        text = json.dumps(sub)
        assert "_mean" not in text and "rating" not in text
        for t in ("prompt_matching_mean", "appeal_mean", "realism_mean", "quality_mean"):
            assert r[t] not in text


def test_avt_ratings_are_mapped_per_scale_and_rater(split_a: Path) -> None:
    _, ratings = read_csv(split_a / "ratings.csv")
    expected: dict[str, dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for r in ratings:
        scale = "quality" if r["scale"] == "image_quality" else r["scale"]
        expected[r["image"]][scale][f"{r['study']}:{r['rater_id']}"] = float(r["rating"])
    assert any(r["scale"] == "image_quality" for r in ratings)
    for item in AvtDataset().load(split_a):
        assert "image_quality" not in item.ratings
        assert set(item.ratings) == {"prompt_matching", "appeal", "realism", "quality", "appeal2"}
        assert item.ratings == {k: dict(v) for k, v in expected[item.id].items()}
        assert len(item.ratings["quality"]) >= 10


def test_avt_skips_rows_without_an_image_and_tolerates_no_ratings(split_a: Path) -> None:
    _, rows = read_csv(split_a / "labels.csv")
    (split_a / rows[0]["image"]).unlink()
    (split_a / "ratings.csv").unlink()
    items = AvtDataset().load(split_a)
    assert [i.id for i in items] == [r["image"] for r in rows[1:]]
    assert all(i.ratings == {} for i in items)


def test_avt_missing_labels_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="must be an AVT folder"):
        AvtDataset().load(tmp_path)


def test_avt_memory_records_come_from_the_given_split(split_b: Path) -> None:
    mems = AvtDataset().memories(split_b)
    assert list(mems) == ["avt-image"]
    records, base = mems["avt-image"]
    assert base == split_b
    _, rows = read_csv(split_b / "labels.csv")
    assert [r.id for r in records] == [
        r["image"].removeprefix("images/").removesuffix(".png") for r in rows
    ]
    assert {r.meta["prompt_id"] for r in records} == {"p05", "p07"}
    first = rows[0]
    assert records[0].scores == {
        s: pytest.approx(float(first[f"{s}_mean"]), abs=1e-4)
        for s in ("prompt_matching", "appeal", "realism", "quality")
    }


def test_avt_adapter_on_the_real_dev_split() -> None:
    dev = require_dev()
    _, rows = read_csv(dev / "labels.csv")
    items = AvtDataset().load(dev)
    assert len(items) == 75 == len(rows)
    assert [i.id for i in items] == [r["image"] for r in rows]
    assert all(i.key == {"image": i.id} for i in items)
    for item, r in zip(items, rows, strict=True):
        has2 = r["appeal2_mean"] != ""
        assert ("appeal2" in item.labels) == has2
        assert set(item.labels) - {"appeal2"} == {"prompt_matching", "appeal", "realism", "quality"}
        assert item.slices["real_photo"] == ("yes" if r["is_real_photo"] == "1" else "no")
    assert {i.group for i in items} == {f"p{k:02d}" for k in range(1, 28, 2)}
    assert sum(i.slices["real_photo"] == "yes" for i in items) == 6
    # ratings.csv: image_quality is the quality target; every scale of the CSV is mapped,
    # one rating per (study, rater) and image (a few raters saw an image twice)
    _, ratings = read_csv(dev / "ratings.csv")
    keys = {(r["study"], r["rater_id"], r["image"], r["scale"]) for r in ratings}
    n_by_scale: dict[str, int] = defaultdict(int)
    for _study, _rater, _image, scale in keys:
        n_by_scale["quality" if scale == "image_quality" else scale] += 1
    got: dict[str, int] = defaultdict(int)
    for i in items:
        for scale, raters in i.ratings.items():
            got[scale] += len(raters)
    assert "image_quality" not in got
    assert dict(got) == dict(n_by_scale)


DOCUMENTED_DEV = "../shared/data/avt-dev"
DOCUMENTING = ("eval/datasets/avt.py", "eval/metaeval/cli.py", "eval/metaeval/baselines.py")


@pytest.mark.parametrize("module", DOCUMENTING)
def test_avt_dev_path_in_the_docs_is_where_the_data_is(module: str) -> None:
    """The path the examples name (from the repository root) holds the dev split the tests use."""
    repo = Path(__file__).resolve().parents[2]
    assert DOCUMENTED_DEV in (repo / module).read_text(encoding="utf-8")
    documented = (repo / DOCUMENTED_DEV).resolve()
    assert documented == AVT_DEV.resolve() and (documented / "labels.csv").is_file()


# ------------------------------------------------------------------------------ expert-jsonl


def test_expert_jsonl_fixture_images_exist() -> None:
    rows = [json.loads(line) for line in (EXPERT / "items.jsonl").read_text().splitlines()]
    for row in rows:
        if row.get("image"):
            assert (EXPERT / row["image"]).is_file()
        if row["task"].get("target_image"):
            assert (EXPERT / row["task"]["target_image"]).is_file()
            Image.open(EXPERT / row["task"]["target_image"]).verify()


def test_expert_jsonl_adapter() -> None:
    ds = ExpertJsonlDataset()
    items = ds.load(EXPERT)
    assert [i.id for i in items] == ["co_501-human", "co_501-mllm", "oe_502-human", "im_503-mllm"]
    # targets: the subjective dimensions found in the file, in order of appearance
    assert [(t.name, t.modality, t.dimension) for t in ds.targets] == [
        ("instructional_clarity", "prompt", "instructional_clarity"),
        ("creative_elaboration", "prompt", "creative_elaboration"),
        ("visual_composition", "image", "visual_composition"),
        ("color_lighting", "image", "color_lighting"),
    ]
    first, prompt_only, oe, im = items
    assert first.labels == {
        "instructional_clarity": 4.33,
        "creative_elaboration": 3.0,
        "visual_composition": 3.67,
        "color_lighting": 2.33,
    }
    # raters: individual scores in a fixed order; none for a dimension without them
    assert first.ratings["instructional_clarity"] == {"r0": 4.0, "r1": 5.0, "r2": 4.0}
    assert "color_lighting" not in first.ratings
    assert first.objective == {
        "prompt": {"c1": True, "c2": True, "c3": True},
        "image": {"c1": False, "c2": True, "c3": True},
    }
    assert prompt_only.objective == {"prompt": {"c1": False, "c2": False}}
    assert prompt_only.submission["images"] == []
    assert "visual_composition" not in prompt_only.labels
    # items carry their group (the task) and slices; paths stay relative to the file
    assert first.group == prompt_only.group == "co_501"
    assert first.submission["images"] == ["images/co_501.png"] and first.base_dir == EXPERT
    assert first.slices == {"category": "CO", "backend": "sketch-gen", "prompter": "human"}
    assert prompt_only.slices["backend"] == "?"
    assert im.submission["task"]["target_image"] == "images/im_503_target.png"
    assert oe.key == {"id": "oe_502-human"}
    # the submission carries no label
    for item in items:
        assert "subjective" not in item.submission and "objective" not in item.submission
        assert item.submission["prompter"]["kind"] in ("human", "mllm")


def test_expert_jsonl_accepts_a_file_path_and_reports_bad_lines(tmp_path: Path) -> None:
    assert len(ExpertJsonlDataset().load(EXPERT / "items.jsonl")) == 4
    bad = tmp_path / "items.jsonl"
    bad.write_text('{"id": "x", "task": {}, "prompt": "p"}\n{not json\n')
    with pytest.raises(ValueError, match=r"items.jsonl:2: not valid JSON"):
        ExpertJsonlDataset().load(tmp_path)
    bad.write_text('\n{"id": "x", "prompt": "p"}\n')
    with pytest.raises(ValueError, match=r"items.jsonl:2: missing 'task'"):
        ExpertJsonlDataset().load(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"expects items\.jsonl"):
        ExpertJsonlDataset().load(tmp_path / "nowhere")


def test_expert_jsonl_memories() -> None:
    mems = ExpertJsonlDataset().memories(EXPERT)
    assert sorted(mems) == ["image-CO", "image-OE", "prompt-CO", "prompt-IM", "prompt-OE"]
    prompt_co, base = mems["prompt-CO"]
    assert base == EXPERT
    assert [r.id for r in prompt_co] == ["co_501-human:prompt", "co_501-mllm:prompt"]
    assert prompt_co[1].scores == {"instructional_clarity": 2.0, "creative_elaboration": 1.67}
    assert all(r.meta == {"task_id": "co_501"} for r in prompt_co)
    image_co = mems["image-CO"][0]
    assert [r.id for r in image_co] == ["co_501-human:image"]  # the prompt-only item has none
    assert image_co[0].image == "images/co_501.png"
    assert image_co[0].scores == {"visual_composition": 3.67, "color_lighting": 2.33}


# ------------------------------------------------------------------------------ csv


def test_parse_columns() -> None:
    spec = parse_columns(
        "image=file, prompt=caption,id=name,category=CO,target.appeal=mos,"
        "target.realism=real,slice.model=gen,group=topic"
    )
    assert spec == {
        "field": {
            "image": "file",
            "prompt": "caption",
            "id": "name",
            "category": "CO",
            "group": "topic",
        },
        "target": {"appeal": "mos", "realism": "real"},
        "slice": {"model": "gen"},
    }


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("prompt=caption,target.appeal=mos", "needs image=COLUMN"),
        ("image=file,prompt=caption", "at least one target.NAME=COLUMN"),
        ("image=file,target.appeal", "expected key=COLUMN, got 'target.appeal'"),
        ("image=file,target.appeal=", "expected key=COLUMN"),
        ("image=file,target.appeal=mos,extra.x=y", "unknown key 'extra.x'"),
    ],
)
def test_parse_columns_errors(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        parse_columns(spec)


def _csv_fixture(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "img").mkdir()
    rows = []
    for k, (color, mos) in enumerate([("red", "4.5"), ("blue", "2"), ("green", ""), ("gray", "3")]):
        Image.new("RGB", (32, 32), color).save(folder / "img" / f"{color}.png")
        rows.append(
            {
                "file": f"img/{color}.png",
                "caption": f"a {color} square",
                "mos": mos,
                "gen": "A" if k % 2 else "B",
                "topic": f"t{k // 2}",
            }
        )
    return write_csv(folder / "labels.csv", ["file", "caption", "mos", "gen", "topic"], rows)


def test_csv_adapter_loads_mapped_columns(tmp_path: Path) -> None:
    _csv_fixture(tmp_path / "d")
    ds = CsvDataset({"image": "file", "prompt": "caption", "target.appeal": "mos",
                     "slice.model": "gen", "group": "topic"})
    assert [(t.name, t.modality, t.dimension) for t in ds.targets] == [
        ("appeal", "image", "appeal")
    ]
    items = ds.load(tmp_path / "d")
    assert [i.id for i in items] == ["img/red.png", "img/blue.png", "img/green.png", "img/gray.png"]
    assert [i.labels.get("appeal") for i in items] == [4.5, 2.0, None, 3.0]
    assert items[0].key == {"image": "img/red.png"} and items[0].base_dir == tmp_path / "d"
    assert items[0].submission["prompt"] == "a red square"
    assert items[0].submission["task"]["category"] == "OE"
    assert items[0].submission["task"]["brief"] == "a red square"
    assert items[0].submission["images"] == ["img/red.png"]
    assert [i.slices for i in items] == [{"model": m} for m in ("B", "A", "B", "A")]
    assert [i.group for i in items] == ["t0", "t0", "t1", "t1"]
    assert "mos" not in json.dumps([i.submission for i in items])
    # the same file by path, and a constant category
    again = CsvDataset({"image": "file", "category": "CO", "target.appeal": "mos"}).load(
        tmp_path / "d" / "labels.csv"
    )
    assert again[0].submission["task"]["category"] == "CO"
    assert again[0].submission["prompt"] == ""
    # memories: labelled rows only, clipped to the 1-5 scale
    recs, base = CsvDataset(
        {"image": "file", "target.appeal": "mos", "group": "topic"}
    ).memories(tmp_path / "d")[
        "csv-image"
    ]
    assert [r.id for r in recs] == ["img/red.png", "img/blue.png", "img/gray.png"]
    assert recs[0].meta == {"group": "t0"} and base == tmp_path / "d"


def test_csv_adapter_errors(tmp_path: Path) -> None:
    _csv_fixture(tmp_path / "d")
    with pytest.raises(ValueError, match=r"columns not found: \['score', 'model'\]"):
        CsvDataset({"image": "file", "target.appeal": "score", "slice.m": "model"}).load(
            tmp_path / "d"
        )
    with pytest.raises(ValueError, match="needs --columns"):
        CsvDataset().load(tmp_path / "d")
    with pytest.raises(ValueError, match="needs image=COLUMN"):
        CsvDataset({"target.appeal": "mos"})
    with pytest.raises(ValueError, match="at least one target"):
        CsvDataset({"image": "file"})


def test_column_pairs_are_the_command_lines_mapping() -> None:
    assert column_pairs(" image=file, target.appeal=mos,,slice.m=gen") == {
        "image": "file", "target.appeal": "mos", "slice.m": "gen"}  # fmt: skip
    assert column_pairs("") == {}


def test_csv_table_is_read_once_for_items_and_memories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under --cv lopo the scored split is also the memory's source: one read of the table."""
    import eval.datasets.csv_table as csv_table

    _csv_fixture(tmp_path / "d")
    reads: list[Path] = []
    real = csv_table._csv_rows
    monkeypatch.setattr(csv_table, "_csv_rows", lambda path: reads.append(path) or real(path))
    ds = CsvDataset({"image": "file", "target.appeal": "mos"})
    items = ds.load(tmp_path / "d")
    (recs, _), = ds.memories(tmp_path / "d").values()
    assert ds.load(tmp_path / "d" / "labels.csv") == items  # the same table by its path
    assert len(reads) == 1 and len(recs) == 3


def test_csv_cli_errors_exit_2(tmp_path: Path, capsys) -> None:
    _csv_fixture(tmp_path / "d")
    base = ["meta-eval", "--dataset", "csv", "--data", str(tmp_path / "d")]
    out = ["--out", str(tmp_path / "out")]
    assert main([*base, *out, "--columns", "image=file,target.appeal=nope"]) == 2
    assert "columns not found: ['nope']" in capsys.readouterr().err
    assert main([*base, *out, "--columns", "prompt=caption,target.appeal=mos"]) == 2
    assert "needs image=COLUMN" in capsys.readouterr().err
    assert main([*base, *out, "--columns", "image=file"]) == 2
    assert "at least one target.NAME=COLUMN" in capsys.readouterr().err
    assert main([*base, *out]) == 2
    assert "needs --columns" in capsys.readouterr().err
