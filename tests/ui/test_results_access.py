"""The results viewer's study runs (issue 22, finding 11, and the results-page part of
finding 6): shown to admins only; a ``results.jsonl`` that links out of the runs folder is
refused; a large one is shown a page at a time; a line holding a lone surrogate is shown
escaped. Plain HTTP against a live service (no browser needed)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.ui.results_pages import PAGE_ROWS
from tests.api.conftest import LiveService
from tests.ui.probe_service import KEY, probe_service

ADMIN = "admin"  # one of the service's JUDGE_SERVE_ADMIN_KEYS
N_LINES = PAGE_ROWS * 5 + 7


def line(i: int, prompt: str = "") -> str:
    return json.dumps(
        {
            "task_id": f"t{i}",
            "prompter": "p",
            "backend": "card",
            "status": "scored",
            "prompt": prompt or f"prompt number {i}",
            "images": [],
            "result": None,
        }
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    big = root / "big-run"
    big.mkdir()
    (big / "results.jsonl").write_text("".join(line(i) + "\n" for i in range(N_LINES)))
    odd = root / "odd-run"
    odd.mkdir()
    (odd / "results.jsonl").write_text(
        line(0, "bad \ud800 prompt") + "\n" + "x" * (2 * 1024 * 1024) + "\n" + line(2) + "\n"
    )
    outside = tmp_path_factory.mktemp("elsewhere") / "results.jsonl"
    outside.write_text(line(0, "a secret from outside the runs folder") + "\n")
    linked = root / "linked-run"
    linked.mkdir()
    (linked / "results.jsonl").symlink_to(outside)
    return root


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, runs: Path) -> Iterator[LiveService]:
    with probe_service(tmp_path_factory.mktemp("results-access"), runs) as svc:
        yield svc


def test_study_runs_are_for_admins_only(service: LiveService) -> None:
    with service.client(cookies={"judge_ui_key": KEY}) as ui:
        index = ui.get("/ui/results/")
        assert index.status_code == 200 and "big-run" not in index.text
        assert "admins" in index.text
        r = ui.get("/ui/results/studies/big-run")
        assert r.status_code == 403 and "prompt number" not in r.text
    with service.client(cookies={"judge_ui_key": ADMIN}) as admin:
        index = admin.get("/ui/results/")
        assert "big-run" in index.text and "odd-run" in index.text
        assert admin.get("/ui/results/studies/big-run").status_code == 200


def test_a_results_file_linking_out_of_the_runs_folder_is_refused(service: LiveService) -> None:
    with service.client(cookies={"judge_ui_key": ADMIN}) as admin:
        assert "linked-run" not in admin.get("/ui/results/").text
        r = admin.get("/ui/results/studies/linked-run")
        assert r.status_code == 404 and "secret" not in r.text


def test_a_large_results_file_is_shown_a_page_at_a_time(service: LiveService) -> None:
    with service.client(cookies={"judge_ui_key": ADMIN}) as admin:
        first = admin.get("/ui/results/studies/big-run")
        assert first.text.count('data-testid="result"') == PAGE_ROWS
        assert "prompt number 0<" in first.text and f"prompt number {PAGE_ROWS}<" not in first.text
        assert "?page=2" in first.text
        last = admin.get("/ui/results/studies/big-run", params={"page": 6})
        assert last.text.count('data-testid="result"') == 7
        assert f"prompt number {N_LINES - 1}<" in last.text and "Next page" not in last.text
        beyond = admin.get("/ui/results/studies/big-run", params={"page": 10**12})
        assert beyond.status_code == 200 and 'data-testid="result"' not in beyond.text


def test_odd_lines_never_break_the_page(service: LiveService) -> None:
    with service.client(cookies={"judge_ui_key": ADMIN}) as admin:
        r = admin.get("/ui/results/studies/odd-run")
        assert r.status_code == 200, r.text[:300]
        assert "bad \\ud800 prompt" in r.text  # the lone surrogate, shown escaped
        assert "1 unreadable lines skipped" in r.text  # the 2 MB line
        assert "prompt number 2" in r.text
