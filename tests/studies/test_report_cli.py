"""``judge study report`` and ``python -m benchmarks.study_report``: every option, bad input."""

from __future__ import annotations

import json

import pytest

from benchmarks import study_report
from judge.cli.main import main

from .report_data import rows, write_study


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["study", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def bench(capsys, *argv: str) -> tuple[int, str, str]:
    code = study_report.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_report_files_options_and_plots(tmp_path, capsys):
    folder = write_study(tmp_path / "s")
    args = ["report", str(folder), "--bootstrap", "120", "--permutations", "500", "--seed", "2"]
    code, out, _ = run(capsys, *args)
    assert code == 0 and "48 items (43 aggregated, 5 left out), 24 cells" in out
    report = json.loads((folder / "report.json").read_text())
    assert report["options"] == {"bootstrap": 120, "permutations": 500, "seed": 2}
    assert report["leaderboard"]["subjective_prompt"]["bootstrap"] == 120
    names = sorted(p.name for p in (folder / "plots").iterdir())
    assert names == ["bars.png", "bt-objective_image_rate.png", "heatmap.png"]
    assert all((folder / "plots" / n).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for n in names)
    assert report["plots"] == [
        f"plots/{n}" for n in ("bars.png", "heatmap.png", "bt-objective_image_rate.png")
    ]
    md = (folder / "report.md").read_text()
    for part in (
        "## Means per prompter, backend and category",
        "### Category CO",
        "Kendall's W",
        "human vs mllm",
        "| 1 | m-sk |",
        "content filter",
        "![plots/bars.png](plots/bars.png)",
    ):
        assert part in md
    m_sk = next(
        c
        for c in report["cells"]
        if (c["prompter"], c["backend"], c["category"]) == ("m-sk", "b1", "all")
    )
    assert f"| m-sk | b1 | 6 | {m_sk['subjective_prompt']['mean']:.2f} [" in md


def test_json_no_plots_seed_and_bootstrap_zero(tmp_path, capsys):
    folder = write_study(tmp_path / "s")
    base = ["report", str(folder), "--no-plots", "--json", "--bootstrap", "80"]
    code, out, _ = run(capsys, *base, "--seed", "1")
    assert code == 0 and not (folder / "plots").exists()
    one = json.loads(out)
    assert one == json.loads((folder / "report.json").read_text()) and "plots" not in one
    again = json.loads(run(capsys, *base, "--seed", "1")[1])
    other = json.loads(run(capsys, *base, "--seed", "9")[1])
    assert again["cells"] == one["cells"]
    assert [c["subjective_prompt"]["mean"] for c in other["cells"]] == [
        c["subjective_prompt"]["mean"] for c in one["cells"]
    ]
    assert [c["subjective_prompt"]["ci95"] for c in other["cells"]] != [
        c["subjective_prompt"]["ci95"] for c in one["cells"]
    ]
    zero = json.loads(
        run(capsys, "report", str(folder), "--no-plots", "--json", "--bootstrap", "0")[1]
    )
    assert all(c["objective_image_rate"]["ci95"] is None for c in zero["cells"])
    assert all(m["ci95"] is None for m in zero["leaderboard"]["subjective_prompt"]["models"])


def test_permutations_option(tmp_path, capsys):
    folder = write_study(tmp_path / "s")
    code, out, _ = run(
        capsys, "report", str(folder), "--no-plots", "--json", "--permutations", "10"
    )
    groups = json.loads(out)["groups"]
    # n pairs need 2^n sign vectors: exact only while 2^n <= 10 (m-nov lost CO on b2, leaving
    # 3 pairs there); otherwise Monte Carlo with p = (hits + 1) / 11
    assert code == 0 and all(g["exact"] is (2 ** g["n_pairs"] <= 10) for g in groups)
    mc = [g["p_value"] for g in groups if not g["exact"]]
    assert len(mc) > 20 and all(abs(p * 11 - round(p * 11)) < 1e-3 for p in mc)


def test_torn_last_line_is_skipped_with_a_note(tmp_path, capsys):
    folder = write_study(tmp_path / "s", tail='{"task_id": "o9", "category": "O')
    code, out, err = run(capsys, "report", str(folder), "--no-plots", "--json")
    assert code == 0
    assert "results.jsonl:49: torn last line skipped" in err
    report = json.loads(out)
    assert report["study"]["n_items"] == 48 and report["notes"] == [
        "results.jsonl:49: torn last line skipped (no line end; a run cut short)"
    ]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda lines: lines.insert(2, "{not json"), "results.jsonl:3: not valid JSON"),
        (
            lambda lines: lines.__setitem__(2, lines[2].replace('"scored"', '"done"')),
            "results.jsonl:3: status 'done' is not one of",
        ),
        (
            lambda lines: lines.__setitem__(0, lines[0].replace('"OE"', '"XX"')),
            "results.jsonl:1: category 'XX' is not one of OE, CO, IM",
        ),
        (
            lambda lines: lines.__setitem__(
                3, lines[3].replace('"prompter": "h-sk"', '"prompter": ""')
            ),
            "results.jsonl:4: field 'prompter' is missing",
        ),
        (
            lambda lines: lines.__setitem__(
                0, lines[0].replace('"subjective_prompt": 4.1', '"subjective_prompt": 7')
            ),
            "results.jsonl:1: summary.subjective_prompt = 7 is outside 1–5",
        ),
        (
            lambda lines: lines.__setitem__(
                0, lines[0].replace('"subjective_prompt": 4.1', '"subjective_prompt": "4"')
            ),
            "results.jsonl:1: summary.subjective_prompt must be a number",
        ),
        (
            lambda lines: lines.__setitem__(5, "[1, 2]"),
            "results.jsonl:6: a results line must be a JSON object",
        ),
        (
            lambda lines: lines.__setitem__(0, lines[0].split(', "summary"')[0] + "}"),
            "results.jsonl:1: status 'scored' needs a 'summary' object",
        ),
        (
            lambda lines: lines.__setitem__(0, lines[0].replace('"checks": [', '"checks": [1, ')),
            "results.jsonl:1: summary.checks must be a list of objects",
        ),
    ],
)
def test_bad_lines_exit_2_naming_the_line(tmp_path, capsys, edit, message):
    lines = [json.dumps(r) for r in rows()]
    edit(lines)
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "results.jsonl").write_text("\n".join(lines) + "\n")
    code, _, err = run(capsys, "report", str(folder), "--no-plots")
    assert code == 2 and message in err and "Traceback" not in err
    assert not (folder / "report.json").exists()


def test_empty_missing_and_bad_options(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "results.jsonl").write_text("\n")
    code, _, err = run(capsys, "report", str(empty))
    assert code == 2 and "holds no items; run `judge study run`" in err
    code, _, err = run(capsys, "report", str(tmp_path / "nowhere"))
    assert code == 2 and "no such study folder" in err
    bare = tmp_path / "bare"
    bare.mkdir()
    code, _, err = run(capsys, "report", str(bare))
    assert code == 2 and "no results file" in err
    folder = write_study(tmp_path / "s")
    assert run(capsys, "report", str(folder), "--bootstrap", "-1")[0] == 2
    code, _, err = run(capsys, "report", str(folder), "--permutations", "0")
    assert code == 2 and "--permutations must be 1 or more" in err
    (folder / "study.json").write_text("{oops")
    code, _, err = run(capsys, "report", str(folder))
    assert code == 2 and "study.json:1: not valid JSON" in err


def test_study_json_metadata_and_duplicates(tmp_path, capsys):
    lines = rows()
    for r in lines:  # results without kinds/conditions: study.json supplies them
        r.pop("prompter_kind")
        r.pop("condition")
    again = dict(lines[0], summary=dict(lines[0]["summary"], subjective_prompt=1.0))
    folder = write_study(tmp_path / "s", [*lines, again])
    meta = {
        "study": {"name": "demo-study"},
        "prompters": [
            {"id": "h-nov", "kind": "human", "condition": "novice"},
            {"id": "m-sk", "kind": "mllm", "condition": "skilled"},
            {"id": "h-sk", "kind": "human", "condition": "skilled"},
            {"id": "m-nov", "kind": "mllm", "condition": "novice"},
            {"id": "unused", "kind": "mllm", "condition": "novice"},
        ],
        "backends": [{"id": "b2"}, {"id": "b1"}],
    }
    (folder / "study.json").write_text(json.dumps(meta))
    code, out, err = run(capsys, "report", str(folder), "--no-plots", "--json")
    report = json.loads(out)
    assert code == 0 and report["study"]["name"] == "demo-study"
    assert [p["id"] for p in report["study"]["prompters"]] == ["h-nov", "m-sk", "h-sk", "m-nov"]
    assert report["study"]["backends"] == ["b2", "b1"]
    assert report["cells"][0]["prompter"] == "h-nov" and report["cells"][0]["backend"] == "b2"
    assert {g["comparison"] for g in report["groups"]} >= {"human vs mllm", "novice vs skilled"}
    assert "1 repeated (task, prompter, backend) lines: the later one kept" in err
    o1 = next(
        c
        for c in report["cells"]
        if (c["prompter"], c["backend"], c["category"])
        == (lines[0]["prompter"], lines[0]["backend"], "OE")
    )
    others = [
        r["summary"]["subjective_prompt"]
        for r in lines[1:]
        if (r["prompter"], r["backend"], r["category"])
        == (lines[0]["prompter"], lines[0]["backend"], "OE")
        and r["status"] == "scored"
    ]
    assert o1["subjective_prompt"]["mean"] == pytest.approx((1.0 + sum(others)) / 3, abs=1e-4)


def test_report_bench(capsys):
    args = [
        "--rows",
        "240",
        "--prompters",
        "3",
        "--backends",
        "2",
        "--repeats",
        "2",
        "--bootstrap",
        "30",
        "--permutations",
        "50",
        "--seed",
        "1",
    ]
    code, out, _ = bench(capsys, *args, "--no-plots", "--json")
    res = json.loads(out)
    assert code == 0 and res["rows"] == 240 and res["tasks"] == 40 and res["repeats"] == 2
    assert res["plots"] is False and len(res["wall_s"]) == 2 and res["median_wall_s"] > 0
    assert res["bootstrap"] == 30 and res["permutations"] == 50
    code, out, _ = bench(capsys, *args, "--repeats", "1")
    assert code == 0 and "report on 240 results" in out and "plots on" in out
    assert bench(capsys, "--rows", "0")[0] == 2
    assert bench(capsys, "--bootstrap", "-2")[0] == 2


def test_only_failed_items_still_report(tmp_path, capsys):
    lines = [dict(r, status="blocked", reason="filter", summary=None) for r in rows()[:6]]
    folder = write_study(tmp_path / "s", lines)
    code, out, _ = run(capsys, "report", str(folder))
    assert code == 0 and "6 items (0 aggregated, 6 left out)" in out
    report = json.loads((folder / "report.json").read_text())
    assert all(
        c["n_tasks"] == 0 and c["subjective_prompt"]["mean"] is None for c in report["cells"]
    )
    assert report["excluded"]["by_reason"] == {"blocked": {"filter": 6}}
    assert report["consistency"]["subjective_prompt"]["w"] is None
    assert report["groups"] == [] and report["plots"] == []
    assert "no two prompters" in report["leaderboard"]["objective_image_rate"]["reason"]
