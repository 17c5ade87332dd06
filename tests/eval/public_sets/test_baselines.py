"""The catalog of quoted baselines (eval/datasets/public/baselines.json): every public set has
an entry that says what was read, every quoted figure names its source, citation and split and
a figure the judge's report prints beside it, and a set with none says so in its report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.datasets import PUBLIC_SETS, get_dataset
from eval.datasets.public.base import BASELINES, Baseline
from eval.metaeval.public_sets import judge_figure
from eval.metaeval.quoted import baseline_lines

RATING_FIGURES = {"spearman", "kendall", "pearson", "pairwise_accuracy"}
PREFERENCE_FIGURES = {"ranking_accuracy", "accuracy"}


def test_every_public_set_has_an_entry_saying_what_was_read() -> None:
    raw = json.loads(BASELINES.read_text(encoding="utf-8"))
    assert set(raw) - {"_about"} == set(PUBLIC_SETS)
    for name in PUBLIC_SETS:
        assert len(raw[name]["checked"]) > 40, name


@pytest.mark.parametrize("name", PUBLIC_SETS)
def test_each_quoted_figure_is_one_the_report_prints(name: str) -> None:
    dataset = get_dataset(name)
    targets = {t.name for t in dataset.targets}
    figures = PREFERENCE_FIGURES if dataset.kind == "preferences" else RATING_FIGURES
    for b in dataset.baselines():
        assert isinstance(b, Baseline) and b.quoted
        assert b.metric in figures, (name, b.metric)
        assert b.target is None or b.target in targets
        assert b.source and b.citation and b.split
        assert 0 <= b.value <= 1  # every figure quoted is a correlation or an accuracy


def test_a_set_without_a_quoted_figure_says_so_and_what_was_read() -> None:
    dataset = get_dataset("agiqa-3k")
    assert dataset.baselines() == []
    section = {
        "title": dataset.title,
        "figures": {"alignment": {"spearman": 0.5, "n": 10, "ci95": {}}},
        "slices": {},
        "baselines": [],
        "baselines_checked": dataset.baselines_checked(),
    }
    md = "\n".join(baseline_lines({"public_set": section}))
    assert "No published figure is quoted for this set. Sources read: " in md
    assert "arXiv:2306.04717" in md and "no figure is quoted from memory" in md


@pytest.mark.parametrize("name", ["richhf", "pickapic"])
def test_the_sets_still_without_a_figure_say_which_paper_was_searched(name: str) -> None:
    dataset = get_dataset(name)
    assert dataset.baselines() == []
    assert "was searched" in dataset.baselines_checked()


@pytest.mark.parametrize("name", ["genai-bench", "evalmuse"])
def test_a_quote_off_the_judges_items_has_no_target_and_no_figure_beside_it(name: str) -> None:
    dataset = get_dataset(name)
    quotes = dataset.baselines()
    assert quotes and all(b.target is None and b.note for b in quotes)
    assert "DYEvaLab/EvalMuse" in dataset.baselines_checked()
    judged = {"spearman": 0.5, "pearson": 0.6, "n": 10, "ci95": {"spearman": [0.2, 0.7]}}
    report = {
        "public_set": {
            "title": dataset.title,
            "figures": {"alignment": judged},
            "slices": {},
            "baselines": [b.as_dict() for b in quotes],
            "baselines_checked": dataset.baselines_checked(),
        }
    }
    md = "\n".join(baseline_lines(report))
    assert "judge (this run" not in md  # the judge's figure is not beside them
    assert "on 10 item(s)" in md and "none is printed beside a quote" in md
    for b in quotes:  # every quote is in its source's table, the citation once per source
        assert f"| {b.system} |" in md
        assert md.count(f"**{b.citation}** — source: {b.source};") == 1


def test_a_quoted_value_is_printed_as_the_source_printed_it() -> None:
    quotes = {(b.system, b.metric): b for b in get_dataset("genai-bench").baselines()}
    assert quotes[("CLIPScore", "spearman")].value == 0.1676
    assert quotes[("FGA-BLIP2 (os+es_avg)", "pearson")].value == 0.5684
    report = {
        "public_set": {
            "title": "t",
            "figures": {},
            "slices": {},
            "baselines": [quotes[("CLIPScore", "spearman")].as_dict()],
        }
    }
    assert "| CLIPScore | 0.1676 |" in "\n".join(baseline_lines(report))


def test_the_judge_figure_beside_a_quote_is_the_one_of_its_target(tmp_path: Path) -> None:
    report = {
        "public_set": {
            "figures": {
                "quality": {"spearman": 0.4, "n": 7, "ci95": {"spearman": [0.1, 0.6]}},
                "alignment": {"spearman": 0.7, "n": 7, "ci95": {"spearman": [0.5, 0.8]}},
            }
        }
    }
    assert judge_figure(report, "spearman", "alignment") == {
        "value": 0.7,
        "ci95": [0.5, 0.8],
        "n": 7,
    }
    assert judge_figure(report, "kendall", "alignment")["value"] is None
