"""``python -m benchmarks.memory`` on tiny sizes: report structure, sanity of numbers, CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import faiss
import numpy as np
import pytest

from benchmarks.memory import (
    BenchConfig,
    data_chunks,
    make_mixture,
    make_queries,
    parse_sizes,
    recall_at_k,
    recommend,
    render,
    run_bench,
)
from benchmarks.memory import (
    main as cli_main,
)
from memory import index

SIZES = (500, 2000)
DIM = 32
QUERIES = 20


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    threads = faiss.omp_get_max_threads()
    cfg = BenchConfig(
        sizes=SIZES, dim=DIM, queries=QUERIES, k=3, encoders=False, progress=False, chunk=700
    )
    out = run_bench(cfg)
    assert faiss.omp_get_max_threads() == threads  # restored
    return out


def test_report_has_a_row_per_size_and_kind(report: dict[str, Any]) -> None:
    assert [(r["size"], r["kind"]) for r in report["results"]] == [
        (500, "flat"),
        (500, "hnsw"),
        (2000, "flat"),
        (2000, "hnsw"),
    ]
    assert report["config"]["hnsw"] == {
        "M": index.HNSW_M,
        "efConstruction": index.HNSW_EF_CONSTRUCTION,
        "efSearch": index.HNSW_EF_SEARCH,
    }
    assert report["encoders"] is None
    assert "load_avg_1min_end" in report["machine"]
    json.dumps(report)  # serialisable as --out writes it


def test_numbers_are_sane(report: dict[str, Any]) -> None:
    threads = report["machine"]["query_threads"]
    assert threads[0] == 1
    for row in report["results"]:
        assert row["build_s"] > 0
        assert 0.0 <= row["recall_at_k"] <= 1.0
        assert row["index_bytes"] >= row["size"] * DIM * 4
        assert set(row["query"]) == {f"threads_{t}" for t in threads}
        for stats in row["query"].values():
            assert 0 < stats["median_ms"] <= stats["p95_ms"]
        if row["kind"] == "flat":
            assert row["recall_at_k"] == 1.0
        else:
            assert row["recall_at_k"] >= 0.5  # tiny indexes are near exact
            assert row["bytes_per_vector"] > DIM * 4  # vectors plus graph links


def test_speedups_and_ef_sweep_at_the_largest_size(report: dict[str, Any]) -> None:
    assert [s["size"] for s in report["speedups"]] == list(SIZES)
    assert all(s["query_speedup_threads_1"] > 0 for s in report["speedups"])
    sweep = report["ef_sweep"]
    assert [(r["size"], r["ef_search"]) for r in sweep] == [(2000, 64), (2000, 128), (2000, 256)]
    assert all(0.0 <= r["recall_at_k"] <= 1.0 and r["median_ms"] > 0 for r in sweep)
    assert report["recommendation"]["ef_search"] in (64, 128, 256)


def test_render_is_a_readable_table(report: dict[str, Any]) -> None:
    text = render(report)
    assert "recall@3" in text and "efSearch trade-off" in text and "HNSW vs flat" in text
    assert "     2,000 hnsw" in text


def test_synthetic_data_is_clustered_unit_and_reproducible() -> None:
    mix = make_mixture(DIM, seed=1, n_clusters=50)
    data = np.concatenate(list(data_chunks(mix, 1000, seed=1, chunk=300)))
    again = np.concatenate(list(data_chunks(mix, 1000, seed=1, chunk=300)))
    queries = make_queries(mix, 30, seed=1)
    assert data.shape == (1000, DIM) and data.dtype == np.float32
    assert np.array_equal(data, again)
    assert np.allclose(np.linalg.norm(data, axis=1), 1.0, atol=1e-5)
    sims = queries @ data.T
    assert sims.max() < 0.999  # queries are fresh draws, not indexed rows
    assert np.median(sims.max(axis=1)) > np.median(sims) + 0.3  # clustered, not noise


def test_recall_and_recommendation_helpers() -> None:
    truth = np.array([[1, 2, 3]])
    assert recall_at_k(truth, truth) == 1.0
    assert recall_at_k(np.array([[7, 8, 9]]), truth) == 0.0
    sweep = [
        {"size": 10, "ef_search": 64, "median_ms": 1.0, "recall_at_k": 0.8},
        {"size": 10, "ef_search": 128, "median_ms": 2.0, "recall_at_k": 0.95},
        {"size": 10, "ef_search": 256, "median_ms": 9.0, "recall_at_k": 0.99},
    ]
    assert recommend(sweep)["ef_search"] == 128
    assert recommend(sweep, target_ms=0.5)["ef_search"] is None
    assert recommend([]) is None
    assert parse_sizes("2k, 3") == [2000, 3]


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    argv = ["--sizes", "300", "--dim", "16", "--queries", "5"]
    code = cli_main([*argv, "--kinds", "hnsw", "--no-encoders", "--out", str(out)])
    assert code == 0
    saved = json.loads(out.read_text())
    assert [r["kind"] for r in saved["results"]] == ["hnsw"]
    assert "recall@3" in capsys.readouterr().out
    assert cli_main([*argv, "--kinds", "ivf", "--no-encoders"]) == 2
    assert "--kinds" in capsys.readouterr().err
