"""Simulation (benchmarks/validation_bots.py): honest annotators and bots label one pairwise
campaign through the real serving code and a real redis-server (simulated clock). Each bot
answers at random except where its one rule speaks — by image URL, by the image's bytes
seen before, by file or image size, by one pixel statistic either way, by a flat, noisy or
blurry image, or at the positions where validation tasks used to come. Each sees exactly
what a browser sees (the public task: per-task image URLs, then the images' bytes). Every
bot must be flagged on validation, and no honest annotator."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from api.core.redis_embedded import EmbeddedRedis
from benchmarks.validation_bots import bots, campaign_body, rates, simulate
from eval.campaigns.report import annotator_flags
from eval.campaigns.validation import by_source


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    with EmbeddedRedis(tmp_path_factory.mktemp("bots-redis")) as url:
        yield asyncio.run(simulate(url, campaign_body(n_prompts=40, votes=8), seed=9))


@pytest.mark.slow
def test_bots_are_caught_and_honest_people_are_not(simulated: tuple) -> None:
    record, attempts = simulated
    rows = {r["annotator"]: r for r in rates(record, attempts)}
    assert {r["kind"] for r in rows.values()} == {"honest", *bots()}
    people = annotator_flags(record, attempts)
    for who, r in rows.items():
        assert r["flagged"] == (r["kind"] != "honest"), r
        if r["kind"] != "honest":
            assert r["validation_answers"] >= 15, r
            assert any(x.startswith("validation") for x in people[who]["reasons"]), r
    # validation tasks came at no fixed place, and many of them
    val = [a for a in attempts if a["validation"] and a["annotator"].startswith("h")]
    assert len({a["item"] for a in val}) > 20


def test_validation_tasks_share_no_url_and_no_bytes_with_real_ones(simulated: tuple) -> None:
    """No image key of a validation item is a real item's (the intact side is a copy)."""
    record, _ = simulated
    real = {k for i in record.real_items() for k in i.image_keys()}
    check = {k for i in record.items if i.validation is not None for k in i.image_keys()}
    assert check and not real & check


def test_the_report_shows_which_validation_kinds_catch_the_bots(simulated: tuple) -> None:
    record, attempts = simulated
    flagged = {w for w, p in annotator_flags(record, attempts).items() if p["flagged"]}
    kinds = by_source(record, attempts, flagged)
    assert set(kinds) <= {"scrambled", "jumbled", "mosaic", "blur", "noise", "blank"}
    assert len(kinds) >= 5
    assert all(k["kept"]["accuracy"] >= 0.9 for k in kinds.values() if k["kept"]["answers"])
    for name in ("scrambled", "jumbled"):  # no pixel tell
        assert kinds[name]["flagged"]["answers"] >= 30 and kinds[name]["flagged"]["accuracy"] < 0.8


@pytest.mark.slow
def test_the_benchmark_runs_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m benchmarks.validation_bots`` as docs/campaigns.md shows it (small)."""
    import json

    from benchmarks.validation_bots import main

    assert main(["--prompts", "3", "--votes", "2", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["kind"] for r in rows} == {"honest", *bots()}
    assert main(["--prompts", "3", "--votes", "2"]) == 0
    assert "honest flagged:" in capsys.readouterr().out
