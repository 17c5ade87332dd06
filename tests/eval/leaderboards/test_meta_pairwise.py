"""Pairwise meta-evaluation: the votes dataset adapter and agreement metrics on crafted inputs."""

from __future__ import annotations

import pytest
from PIL import Image

from eval.datasets import get_dataset
from eval.leaderboards import Vote, VotesError
from eval.leaderboards.meta import human_majorities, metrics_markdown, pairwise_metrics

HEADER = "prompt_id,prompt,image_a,image_b,model_a,model_b,winner,criterion,annotator\n"


@pytest.fixture
def votes_dir(tmp_path):
    img = tmp_path / "img"
    img.mkdir()
    for name in ("p1-x", "p1-y", "p2-x", "p2-z"):
        Image.new("RGB", (8, 8), (40, 90, 200)).save(img / f"{name}.png")
    rows = [
        # p1: x vs y, shown in both orders; preference 2 x / 1 y -> x; alignment 1-1 -> tie
        "p1,a red car,img/p1-x.png,img/p1-y.png,x,y,a,preference,r1",
        "p1,a red car,img/p1-y.png,img/p1-x.png,y,x,b,preference,r2",
        "p1,a red car,img/p1-y.png,img/p1-x.png,y,x,a,preference,r3",
        "p1,a red car,img/p1-x.png,img/p1-y.png,x,y,a,alignment,r1",
        "p1,a red car,img/p1-x.png,img/p1-y.png,x,y,b,alignment,r2",
        # p2: z beats x twice, one tie
        "p2,two cats,img/p2-x.png,img/p2-z.png,x,z,b,preference,r1",
        "p2,two cats,img/p2-z.png,img/p2-x.png,z,x,a,preference,r2",
        "p2,two cats,img/p2-z.png,img/p2-x.png,z,x,tie,preference,",
    ]
    (tmp_path / "votes.csv").write_text(HEADER + "\n".join(rows) + "\n")
    return tmp_path


def test_votes_dataset_groups_comparisons_with_majority(votes_dir):
    ds = get_dataset("votes")
    items = {i.id: i for i in ds.load(votes_dir)}
    assert set(items) == {"p1:x-vs-y", "p2:x-vs-z"}
    p1 = items["p1:x-vs-y"]
    assert p1.submission == {
        "mode": "compare",
        "id": "p1:x-vs-y",
        "prompt": "a red car",
        "brief": None,
        "a": {"image": "img/p1-x.png", "model": "x"},
        "b": {"image": "img/p1-y.png", "model": "y"},
        "criteria": ["preference", "alignment"],
    }
    assert p1.base_dir == votes_dir and (p1.base_dir / p1.submission["a"]["image"]).is_file()
    assert p1.labels == {"preference": 1.0, "alignment": 0.5}
    assert p1.ratings["preference"] == {"a": 2.0, "b": 1.0, "tie": 0.0}
    assert items["p2:x-vs-z"].labels == {"preference": 0.0}
    assert p1.group == "p1" and p1.key == {"id": "p1:x-vs-y", "prompt_id": "p1"}
    assert [t.name for t in ds.targets] == ["preference", "alignment"]
    assert len(ds.votes(votes_dir / "votes.csv")) == 8
    assert ds.memories(votes_dir) == {}


def test_votes_dataset_errors_name_file_line_field(votes_dir):
    ds = get_dataset("votes")
    path = votes_dir / "votes.csv"
    path.write_text(HEADER + "p1,a car,img/p1-x.png,img/missing.png,x,y,a,preference,\n")
    with pytest.raises(VotesError, match=r"votes.csv:2: field 'image_b': image 'img/missing.png'"):
        ds.load(votes_dir)
    path.write_text(HEADER + "p1,a car,img/p1-x.png,img/p1-y.png,x,y,maybe,preference,\n")
    with pytest.raises(VotesError, match=r"votes.csv:2: field 'winner' has unknown value"):
        ds.load(path)
    path.write_text("prompt_id,prompt,image_a,model_a,model_b,winner,criterion\n")
    with pytest.raises(VotesError, match=r"votes.csv:1: missing column 'image_b'"):
        ds.load(path)
    with pytest.raises(FileNotFoundError, match="votes dataset expects"):
        ds.load(votes_dir / "elsewhere")


def comparison(cid, a, b, verdicts):
    return {
        "comparison_id": cid,
        "status": "scored",
        "models": {"a": a, "b": b},
        "criteria": {
            c: {"winner": w, "position_consistent": pc} for c, (w, pc) in verdicts.items()
        },
    }


def test_pairwise_metrics_on_crafted_results(votes_dir):
    human = get_dataset("votes").votes(votes_dir)
    results = [
        # agrees on p1 preference (x), says tie on alignment (humans: tie) -> both agree
        comparison("p1:x-vs-y", "x", "y", {"preference": ("a", True), "alignment": ("tie", False)}),
        # p2 with sides swapped: judge picks x, humans z -> miss
        comparison("p2:x-vs-z", "z", "x", {"preference": ("b", True)}),
        # a comparison humans never saw
        comparison("p3:x-vs-y", "x", "y", {"preference": ("a", True)}),
    ]
    prompt_of = {"p1:x-vs-y": "p1", "p2:x-vs-z": "p2", "p3:x-vs-y": "p3"}
    m = pairwise_metrics(human, results, prompt_of=prompt_of, n_boot=200, seed=1)
    pref, align, overall = m["criteria"]["preference"], m["criteria"]["alignment"], m["overall"]
    assert (pref["n"], pref["accuracy"], pref["n_decisive"], pref["decisive_accuracy"]) == (
        2,
        0.5,
        2,
        0.5,
    )
    assert (align["n"], align["accuracy"], align["n_decisive"]) == (1, 1.0, 0)
    assert align["decisive_accuracy"] is None and align["judge_tie_rate"] == 1.0
    assert overall["n"] == 3 and overall["accuracy"] == pytest.approx(2 / 3, abs=1e-4)
    lo, hi = overall["accuracy_ci95"]
    assert 0.0 <= lo <= 2 / 3 <= hi <= 1.0
    assert pref["position_consistency"] == 1.0 and align["position_consistency"] == 0.0
    assert overall["position_consistency"] == 0.75
    assert m["unmatched_verdicts"] == 1 and m["n_judge_verdicts"] == 4
    assert m["n_human_comparisons"] == 3 and "third outcome" in m["tie_policy"]
    # humans: z > x > y on preference; judge: x > y, x > z -> kendall between BT fits
    assert pref["n_models"] == 3 and pref["kendall_tau"] == pytest.approx(1 / 3, abs=1e-3)
    assert pref["spearman"] == pytest.approx(0.5, abs=1e-3)
    md = metrics_markdown(m)
    assert md.startswith("## Pairwise agreement with the human majority")
    assert "| preference | 2 | 0.500 |" in md and "| **overall** | 3 | 0.667 |" in md


def test_judge_prompt_id_field_and_unscored(votes_dir):
    human = [
        Vote("p1", "x", "y", "a", "preference"),
        Vote("p1", "x", "y", "b", "preference"),
        Vote("p1", "y", "x", "tie", "preference"),
    ]
    assert human_majorities(human) == {("p1", "preference", "x", "y"): "tie"}  # 1-1-1 split
    res = comparison("anything", "y", "x", {"preference": ("b", False), "style": (None, None)})
    res["prompt_id"] = "p1"
    m = pairwise_metrics(human, [res], n_boot=0)
    assert m["overall"]["accuracy"] == 0.0 and m["overall"]["accuracy_ci95"] is None
    assert m["unscored_verdicts"] == 1 and m["unmatched_verdicts"] == 0
    # the humans rank x and y equal: a rank correlation is undefined, not a number
    assert m["criteria"]["preference"]["kendall_tau"] is None
    assert m["criteria"]["preference"]["n_models"] == 2
