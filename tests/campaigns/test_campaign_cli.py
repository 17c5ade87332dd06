"""`judge campaign` against the live service: from a study run folder to a campaign,
invitations, labels, the exported votes (read by `judge leaderboard` and the votes dataset)
and the report with its figures — no code written by the admin. Also the folder source,
rating exports and errors that say what to do."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import httpx
import pytest

from eval.campaigns.cli import main
from eval.datasets.votes import VotesDataset
from judge.cli.main import main as judge_main
from tests.api.conftest import LiveService
from tests.campaigns.helpers import COLOURS, answer_all, looks_like, png, stored

BACKENDS = {"flux": 4.2, "sd3": 3.1, "dalle": 2.5}


def study_run(folder: Path) -> Path:
    """A study run folder as `judge study run` leaves it: results.jsonl, images beside."""
    lines = []
    for t in range(4):
        for b, (backend, score) in enumerate(BACKENDS.items()):
            rel = f"images/oe_{t}/{backend}/0.png"
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(png(COLOURS[b], t + b))
            lines.append({
                "task_id": f"oe_{t}", "category": "OE", "prompter": "gpt", "backend": backend,
                "status": "scored", "prompt": f"a bakery at dawn, take {t}", "images": [rel],
                "selected_image": 0, "summary": {"subjective_image": score - 0.1 * t},
            })  # fmt: skip
    (folder / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


def run(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_study_run_to_votes_leaderboard_and_report(
    service: LiveService, anon: httpx.Client, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("JUDGE_ADMIN_KEY", "admin")
    url = service.base_url
    source = study_run(tmp_path / "run")
    code, out, err = run("create", str(source), "--url", url, "--id", "cli-1", "--kind",
                         "pairwise", "--criterion", "preference", "--votes-per-item", "3",
                         "--min-seconds", "0", "--compare", "models", capsys=capsys)  # fmt: skip
    assert code == 0, err
    assert "campaign 'cli-1': 12 items" in out  # 4 tasks x 3 pairs
    code, out, err = run("invite", "cli-1", "--url", url, "--count", "3", "--out",
                         str(tmp_path / "links.csv"), capsys=capsys)  # fmt: skip
    assert code == 0, err
    links = list(csv.DictReader((tmp_path / "links.csv").open()))
    assert [r["annotator"] for r in links] == ["a01", "a02", "a03"]
    originals = [stored(p.read_bytes()) for p in source.rglob("*.png")]

    def pick(task: dict, turn: list[int]) -> dict:
        """The intact image on validation tasks (it is one of the run's), else alternate."""
        known = [looks_like(anon.get(task["images"][s]).content, originals)
                 for s in ("a", "b")]  # fmt: skip
        if known.count(True) == 1:
            return {"choice": "a" if known[0] else "b"}
        turn[0] += 1
        return {"choice": "ab"[turn[0] % 2]}

    for link in links:
        token = link["url"].rsplit("/", 1)[-1]
        assert token == link["token"]
        turn = [0]
        answer_all(anon, token, lambda t, turn=turn: pick(t, turn))
    code, out, _ = run("status", "cli-1", "--url", url, capsys=capsys)
    assert "36 of 36 labels" in out and "12 of 12 items complete" in out
    assert run("close", "cli-1", "--url", url, capsys=capsys)[0] == 0

    votes_dir = tmp_path / "votes"
    code, out, err = run("votes", "cli-1", "--url", url, "--out", str(votes_dir), capsys=capsys)
    assert code == 0, err
    assert "wrote 36 votes" in out
    rows = [json.loads(x) for x in (votes_dir / "votes.jsonl").read_text().splitlines()]
    by_prompt = {r["prompt"]: r["prompt_id"] for r in rows}  # one id per prompt, not per item
    assert len(set(by_prompt.values())) == len(by_prompt) < len({r["item"] for r in rows})
    assert all(by_prompt[r["prompt"]] == r["prompt_id"] for r in rows)
    assert all((votes_dir / r["image_a"]).is_file() for r in rows)
    items = VotesDataset().load(votes_dir)  # the meta-eval votes dataset reads the folder
    assert len(items) == 12
    assert not any(r["excluded"] for r in rows)
    assert judge_main(["leaderboard", "rank", str(votes_dir / "votes.jsonl"), "--json",
                       "--bootstrap", "20"]) == 0  # fmt: skip
    board = json.loads(capsys.readouterr().out)
    board = board[0] if isinstance(board, list) else board
    assert board["n_votes"] == 36 and len(board["models"]) == 3

    report_dir = tmp_path / "report"
    code, out, err = run("report", "cli-1", "--url", url, "--out", str(report_dir),
                         "--bootstrap", "50", capsys=capsys)  # fmt: skip
    assert code == 0, err
    report = json.loads((report_dir / "report.json").read_text())
    assert report["judge_agreement"]["judge_human"]["pairs"] > 0  # the run's judge scores
    assert report["progress"]["labels"] == 36
    assert (report_dir / "annotators.png").stat().st_size > 1000
    assert (report_dir / "judge_agreement.png").is_file()
    assert "# Campaign cli-1" in (report_dir / "report.md").read_text()


def test_folder_source_ratings_and_errors(
    service: LiveService, anon: httpx.Client, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("JUDGE_ADMIN_KEY", "admin")
    url = service.base_url
    folder = tmp_path / "imgs"
    for m, model in enumerate(("x", "y")):
        for p in range(3):
            (folder / model).mkdir(parents=True, exist_ok=True)
            (folder / model / f"p{p}.png").write_bytes(png(COLOURS[m + p], p))
    (folder / "prompts.jsonl").write_text('{"prompt_id": "p0", "prompt": "a lighthouse"}\n')
    code, out, err = run("create", str(folder), "--url", url, "--id", "cli-rate", "--kind",
                         "rating", "--criterion", "visual_quality", "--votes-per-item", "1",
                         "--min-seconds", "0", capsys=capsys)  # fmt: skip
    assert code == 0, err
    assert "6 items" in out
    code, out, _ = run("invite", "cli-rate", "--url", url, "--count", "1", capsys=capsys)
    row = next(csv.DictReader(out.splitlines()))  # printed when there is no --out
    token = row["token"]
    assert answer_all(anon, token, lambda t: {"rating": 3}) >= 6
    out_dir = tmp_path / "ratings"
    code, out, err = run("votes", "cli-rate", "--url", url, "--out", str(out_dir), capsys=capsys)
    assert code == 0, err
    rows = [json.loads(x) for x in (out_dir / "ratings.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and all((out_dir / r["image"]).is_file() for r in rows)

    # errors name the problem and what to do; bad input exits 2, an unreachable service 1
    code, _, err = run("create", str(tmp_path / "nothing"), "--url", url, "--id", "x",
                       capsys=capsys)  # fmt: skip
    assert code == 2 and "not a study run" in err
    code, _, err = run("status", "no-such", "--url", url, capsys=capsys)
    assert code == 2 and "HTTP 404" in err
    code, _, err = run("status", "cli-rate", "--url", "http://127.0.0.1:9", capsys=capsys)
    assert code == 1 and err.count("could not connect to http://127.0.0.1:9") == 1, err
    monkeypatch.setenv("JUDGE_ADMIN_KEY", "reader")
    code, _, err = run("status", "cli-rate", "--url", url, capsys=capsys)
    assert code == 2 and "admin key" in err
