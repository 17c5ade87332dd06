"""``judge compare`` and ``judge compare-bench`` from the command line (every flag used)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from benchmarks import compare as compare_bench
from judge.cli.main import main
from tests.conftest import REPO, png_data_url
from tests.modes.test_compare import is_pairwise, prefers_red

EXAMPLE = REPO / "examples" / "compare" / "comparison.json"


def write_jsonl(path: Path, n: int) -> Path:
    rows = [
        {
            "id": f"c{i}",
            "prompt_id": f"p{i}",
            "prompt": f"a kite number {i}",
            "a": {"image": png_data_url("red"), "model": "red-model"},
            "b": {"image": png_data_url("blue"), "model": "blue-model"},
            "criteria": ["preference"],
        }
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def model_flags(provider) -> list[str]:
    return ["--model", "openai/fake-judge", "--api-base", provider.base_url, "--api-key", "k"]


def test_offline_example_prints_an_unscored_result(capsys) -> None:
    assert main(["compare", str(EXAMPLE), "--backend", "local", "--compact"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # --compact: one line
    body = json.loads(out)
    assert body["status"] == "partial"
    assert {c["cause"] for c in body["criteria"].values()} == {"no_model"}


def test_jsonl_in_results_out_and_votes(tmp_path: Path, provider, capsys) -> None:
    provider.on(is_pairwise, prefers_red)
    src = write_jsonl(tmp_path / "cmp.jsonl", 3)
    votes_csv, votes_jsonl, out = tmp_path / "v.csv", tmp_path / "v.jsonl", tmp_path / "r.jsonl"
    args = ["compare", str(src), *model_flags(provider), "--concurrency", "2", "--no-cache"]
    assert main([*args, "--out", str(out), "--votes", str(votes_csv), "--timeout", "5"]) == 0
    results = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["comparison_id"] for r in results] == ["c0", "c1", "c2"]
    rows = list(csv.DictReader(votes_csv.open()))
    assert {(r["prompt_id"], r["winner"], r["model_a"]) for r in rows} == {
        ("p0", "a", "red-model"),
        ("p1", "a", "red-model"),
        ("p2", "a", "red-model"),
    }
    assert main([*args, "--votes", str(votes_jsonl), "--sequential-safety"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 3  # JSONL on stdout
    assert json.loads(votes_jsonl.read_text().splitlines()[0])["criterion"] == "preference"


def test_allow_tie_and_panel_flags(tmp_path: Path, provider, capsys) -> None:
    provider.on(is_pairwise, {"rationale": "same", "choice": "tie"})
    src = write_jsonl(tmp_path / "one.jsonl", 1)
    flags = [*model_flags(provider), "--allow-tie", "--panel", "openai/m1,openai/m2"]
    assert main(["compare", str(src), *flags]) == 0
    body = json.loads(capsys.readouterr().out)
    crit = body["criteria"]["preference"]
    assert crit["winner"] == "tie" and crit["position_consistent"] is True
    assert body["provenance"]["judge_models"] == ["openai/m1", "openai/m2"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"prompt": "x", "a": {"image": "missing.png"}, "b": {"image": "b.png"}}', "a.image"),
        ("{not json\n", "not valid JSON"),
        ("", "no comparison"),
    ],
)
def test_bad_files_exit_2(tmp_path: Path, provider, capsys, content: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    assert main(["compare", str(path), *model_flags(provider)]) == 2
    assert message in capsys.readouterr().err


def test_one_bad_item_among_many_is_named_and_the_rest_are_judged(
    tmp_path: Path, provider, capsys
) -> None:
    provider.on(is_pairwise, prefers_red)
    src = write_jsonl(tmp_path / "cmp.jsonl", 2)
    lines = src.read_text().splitlines()
    bad = json.loads(lines[1])
    bad["criteria"] = ["nonsense"]
    src.write_text(lines[0] + "\n" + json.dumps(bad) + "\n")
    assert main(["compare", str(src), *model_flags(provider)]) == 2
    captured = capsys.readouterr()
    assert "items[1].criteria[0]" in captured.err and "available" in captured.err
    assert len(captured.out.splitlines()) == 1


def test_llm_backend_without_model_exits_3(capsys) -> None:
    assert main(["compare", str(EXAMPLE), "--backend", "llm"]) == 3


@pytest.mark.slow
def test_compare_bench_reports_model_time(capsys) -> None:
    assert compare_bench.main(["--latency", "0.05", "--repeats", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["calls_per_comparison"] == 9 and report["model_time_x_L_median"] > 0
    span, graph, wall = (
        report[k] for k in ("call_span_x_L_median", "model_time_x_L_median", "wall_x_L_median")
    )
    assert 1.0 <= span <= graph <= wall and report["target_x_L"] == 1.3
    assert compare_bench.main(["--latency", "0.05", "--repeats", "1"]) == 0
    assert "model-call span" in capsys.readouterr().out
    assert compare_bench.main(["--latency", "0"]) == 2
