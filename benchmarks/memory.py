"""``python -m benchmarks.memory``: FAISS index and encoder costs for exemplar memories on this CPU.

For each memory size and index kind (``flat`` = exact inner product, ``hnsw`` with the
parameters of :mod:`memory.index`) it reports:

- build time (``index.add`` in chunks, on all cores; data generation is not counted);
- top-k query latency, median and p95 in ms, one ``memory.index.search`` call per query
  as the service makes them, with FAISS on one OpenMP thread and on all cores;
- recall@k against the exact flat results for the same queries (flat is 1.0 by definition);
- the index memory footprint (bytes of ``faiss.serialize_index``);
- an efSearch trade-off table (latency and recall, one thread) at the largest size, and at
  any size where recall@k with the default efSearch is below :data:`RECALL_TARGET`;
- load time, first-call time and per-item encode time of the default text and image
  encoders (MiniLM on short distinct texts, EfficientNet-Lite0 on distinct 512² images).

The data is not uniform noise but shaped like sentence embeddings: a Gaussian mixture of
:data:`N_CLUSTERS` centres with uneven (log-normal) cluster sizes and per-cluster spread,
an anisotropic variance spectrum (participation ratio ~64 of 384 dims) and a shared mean
direction (random pairs have cosine ~0.1, as with MiniLM), each row L2-normalised. It is
generated in chunks from per-chunk seeds, so the same rows are regenerated for each index
kind instead of being kept in memory; queries come from their own seed stream, so they are
fresh draws from the mixture, never copies of indexed rows. Usage::

    $ python -m benchmarks.memory                    # quick: 1k and 10k vectors
    $ python -m benchmarks.memory --full --out /tmp/mb.json   # 1k, 100k, 1M (minutes, GBs)
    $ python -m benchmarks.memory --sizes 1000,5000 --queries 20 --no-encoders

    report = run_bench(BenchConfig(sizes=(500, 2000), dim=32, queries=20, encoders=False))
    print(render(report))

The small helpers:

    >>> parse_sizes("1k,20000,1m")
    [1000, 20000, 1000000]
    >>> recall_at_k(np.array([[1, 2, 3], [4, 5, 6]]), np.array([[3, 2, 1], [4, 5, 9]]))
    0.8333333333333334
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import faiss
import numpy as np
from tqdm import tqdm

from memory.index import (
    HNSW_EF_CONSTRUCTION,
    HNSW_EF_SEARCH,
    HNSW_M,
    IndexKind,
    new_index,
    search,
)

N_CLUSTERS = 2000
SPECTRUM_DECAY = 0.8
MEAN_WEIGHT = 0.35
SPREAD_RANGE = (0.5, 1.0)
CHUNK = 50_000
WARMUP_QUERIES = 10
BATCH_REPEATS = 3
RECALL_TARGET = 0.9
TARGET_MS = 5.0
KINDS: tuple[IndexKind, ...] = ("flat", "hnsw")
DEFAULT_SIZES = "1000,100000,1000000"
DEFAULT_EF_SWEEP = "64,128,256"
_DATA_STREAM, _QUERY_STREAM = 0, 1


@dataclass(frozen=True)
class BenchConfig:
    """What to measure (defaults are the CLI's)."""

    sizes: tuple[int, ...] = (1000, 100_000, 1_000_000)
    dim: int = 384
    queries: int = 200
    k: int = 3
    kinds: tuple[IndexKind, ...] = KINDS
    encoders: bool = True
    seed: int = 0
    ef_sweep: tuple[int, ...] = (64, 128, 256)
    n_clusters: int = N_CLUSTERS
    chunk: int = CHUNK
    progress: bool = True


# --- synthetic embeddings -------------------------------------------------------------


@dataclass(frozen=True)
class Mixture:
    """A Gaussian mixture on the unit sphere (see the module docstring)."""

    centres: np.ndarray  # (clusters, dim) float32, unit rows
    spreads: np.ndarray  # (clusters,) noise norm relative to the centre
    weights: np.ndarray  # (clusters,) probabilities, uneven
    scales: np.ndarray  # (dim,) per-axis noise std, sum of squares 1


def l2_rows(x: np.ndarray) -> np.ndarray:
    """Normalise rows in place (float32) and return ``x``."""
    x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    return x


def make_mixture(dim: int, seed: int, n_clusters: int = N_CLUSTERS) -> Mixture:
    """The mixture for ``dim`` and ``seed``: anisotropic centres around a shared mean."""
    rng = np.random.default_rng([seed, dim, n_clusters])
    scales = (np.arange(dim, dtype=np.float64) + 1.0) ** (-SPECTRUM_DECAY / 2)
    scales = (scales / np.linalg.norm(scales)).astype(np.float32)
    mean = l2_rows(rng.standard_normal((1, dim), dtype=np.float32))
    centres = rng.standard_normal((n_clusters, dim), dtype=np.float32) * scales
    centres += MEAN_WEIGHT * mean
    weights = rng.lognormal(0.0, 1.0, n_clusters)
    return Mixture(
        centres=l2_rows(centres),
        spreads=rng.uniform(*SPREAD_RANGE, n_clusters).astype(np.float32),
        weights=weights / weights.sum(),
        scales=scales,
    )


def sample(mixture: Mixture, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` unit float32 rows: a centre plus its cluster's anisotropic Gaussian noise."""
    which = rng.choice(len(mixture.weights), size=n, p=mixture.weights)
    dim = mixture.centres.shape[1]
    rows = rng.standard_normal((n, dim), dtype=np.float32)
    rows *= mixture.scales
    rows *= mixture.spreads[which, None]
    rows += mixture.centres[which]
    return l2_rows(rows)


def data_chunks(mixture: Mixture, n: int, seed: int, chunk: int = CHUNK) -> Iterator[np.ndarray]:
    """The ``n`` indexed rows in chunks; chunk ``i`` depends only on ``(seed, i)``."""
    for i, start in enumerate(range(0, n, chunk)):
        rng = np.random.default_rng([seed, _DATA_STREAM, i])
        yield sample(mixture, min(chunk, n - start), rng)


def make_queries(mixture: Mixture, n: int, seed: int) -> np.ndarray:
    """``n`` query rows from the same mixture, on a seed stream of their own."""
    return sample(mixture, n, np.random.default_rng([seed, _QUERY_STREAM]))


# --- measurements ---------------------------------------------------------------------


def cpu_count() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _bar(total: int, desc: str, enabled: bool) -> tqdm:
    return tqdm(
        total=total, desc=desc, unit="vec", file=sys.stderr, leave=False, disable=not enabled
    )


def build(
    kind: IndexKind, dim: int, chunks: Iterator[np.ndarray], n: int, progress: bool = True
) -> tuple[faiss.Index, float]:
    """A ``kind`` index over ``chunks`` and the seconds spent in ``index.add``."""
    index = new_index(dim, kind)
    elapsed = 0.0
    with _bar(n, f"build {kind} {n:,}", progress) as bar:
        for chunk in chunks:
            t0 = time.perf_counter()
            index.add(chunk)
            elapsed += time.perf_counter() - t0
            bar.update(len(chunk))
    return index, elapsed


SearchFn = Callable[[faiss.Index, np.ndarray, int], tuple[np.ndarray, np.ndarray]]


def timed_queries(
    index: faiss.Index, queries: np.ndarray, k: int, search_fn: SearchFn = search
) -> tuple[np.ndarray, np.ndarray]:
    """Milliseconds per single-query call, and the ids found, after a short warm-up."""
    for i in range(min(WARMUP_QUERIES, len(queries))):
        search_fn(index, queries[i : i + 1], k)
    ms = np.empty(len(queries))
    ids = np.full((len(queries), k), -1, dtype=np.int64)
    for i in range(len(queries)):
        t0 = time.perf_counter()
        _, found = search_fn(index, queries[i : i + 1], k)
        ms[i] = (time.perf_counter() - t0) * 1000
        ids[i, : found.shape[1]] = found[0]
    return ms, ids


def latency_stats(ms: np.ndarray) -> dict[str, float]:
    """Median, p95 and mean of per-query milliseconds."""
    return {
        "median_ms": round(float(np.median(ms)), 4),
        "p95_ms": round(float(np.percentile(ms, 95)), 4),
        "mean_ms": round(float(np.mean(ms)), 4),
    }


def recall_at_k(found: np.ndarray, truth: np.ndarray) -> float:
    """Mean fraction of each query's true top-k ids that were found."""
    k = truth.shape[1]
    hits = [len(set(f.tolist()) & set(t.tolist())) for f, t in zip(found, truth, strict=True)]
    return float(np.mean(hits) / k) if hits else 0.0


def footprint(index: faiss.Index) -> int:
    """Bytes of the serialised index (vectors plus graph links)."""
    return int(faiss.serialize_index(index).nbytes)


def thread_counts(cores: int) -> list[int]:
    """FAISS thread settings queries are measured with: one thread, then all cores."""
    return sorted({1, cores})


def measure_queries(
    index: faiss.Index, queries: np.ndarray, k: int, cores: int
) -> tuple[dict[str, dict[str, float]], np.ndarray]:
    """Latency stats per thread setting (``"threads_1"``, ...) and the one-thread ids."""
    stats: dict[str, dict[str, float]] = {}
    ids = np.empty((0, k), dtype=np.int64)
    for threads in thread_counts(cores):
        faiss.omp_set_num_threads(threads)
        ms, found = timed_queries(index, queries, k)
        stats[f"threads_{threads}"] = latency_stats(ms)
        if threads == 1:
            ids = found
    faiss.omp_set_num_threads(cores)
    return stats, ids


def exact_topk(index: faiss.Index, queries: np.ndarray, k: int) -> np.ndarray:
    """Top-k ids of every query from an exact index, in one batched call."""
    return search(index, queries, k)[1]


def ef_sweep(
    index: faiss.Index, queries: np.ndarray, k: int, truth: np.ndarray, values: Sequence[int]
) -> list[dict[str, float]]:
    """Latency (one thread) and recall per efSearch value (``index.search`` called directly,
    since :func:`memory.index.search` resets efSearch)."""
    hnsw = faiss.downcast_index(index).hnsw
    before = hnsw.efSearch
    faiss.omp_set_num_threads(1)
    rows = []
    try:
        for ef in values:
            hnsw.efSearch = max(ef, k)
            ms, ids = timed_queries(index, queries, k, lambda ix, q, kk: ix.search(q, kk))
            row = {"ef_search": int(ef), **latency_stats(ms)}
            rows.append({**row, "recall_at_k": round(recall_at_k(ids, truth), 4)})
    finally:
        hnsw.efSearch = before
        faiss.omp_set_num_threads(cpu_count())
    return rows


# --- one size -------------------------------------------------------------------------


@dataclass
class SizeResult:
    """Rows of the results table for one size, plus the efSearch trade-off if measured."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    sweep: list[dict[str, Any]] = field(default_factory=list)


def _chunks(cfg: BenchConfig, mixture: Mixture, n: int) -> Iterator[np.ndarray]:
    return data_chunks(mixture, n, cfg.seed, cfg.chunk)


def ground_truth(
    cfg: BenchConfig, mixture: Mixture, n: int, queries: np.ndarray, cores: int
) -> tuple[np.ndarray, dict[str, Any] | None]:
    """Exact top-k ids; and the flat row of the table when ``flat`` is a measured kind."""
    faiss.omp_set_num_threads(cores)
    index, build_s = build("flat", cfg.dim, _chunks(cfg, mixture, n), n, cfg.progress)
    truth = exact_topk(index, queries, cfg.k)
    if "flat" not in cfg.kinds:
        return truth, None
    stats, _ = measure_queries(index, queries, cfg.k, cores)
    row = _row(n, "flat", build_s, stats, 1.0, footprint(index))
    return truth, row


def _row(
    n: int, kind: str, build_s: float, stats: dict, recall: float, nbytes: int
) -> dict[str, Any]:
    return {
        "size": n,
        "kind": kind,
        "build_s": round(build_s, 6),
        "query": stats,
        "recall_at_k": round(recall, 4),
        "index_bytes": nbytes,
        "bytes_per_vector": round(nbytes / max(n, 1), 1),
    }


def bench_hnsw(
    cfg: BenchConfig,
    mixture: Mixture,
    n: int,
    queries: np.ndarray,
    truth: np.ndarray,
    sweep: bool,
) -> SizeResult:
    """The HNSW row for size ``n``; an efSearch sweep when asked or when recall is low."""
    cores = cpu_count()
    faiss.omp_set_num_threads(cores)
    index, build_s = build("hnsw", cfg.dim, _chunks(cfg, mixture, n), n, cfg.progress)
    stats, ids = measure_queries(index, queries, cfg.k, cores)
    recall = recall_at_k(ids, truth)
    result = SizeResult(rows=[_row(n, "hnsw", build_s, stats, recall, footprint(index))])
    if cfg.ef_sweep and (sweep or recall < RECALL_TARGET):
        result.sweep = [
            {"size": n, **r} for r in ef_sweep(index, queries, cfg.k, truth, cfg.ef_sweep)
        ]
    return result


def bench_size(cfg: BenchConfig, mixture: Mixture, n: int, queries: np.ndarray) -> SizeResult:
    """Every requested kind at size ``n``."""
    truth, flat_row = ground_truth(cfg, mixture, n, queries, cpu_count())
    result = SizeResult(rows=[flat_row] if flat_row else [])
    if "hnsw" in cfg.kinds:
        largest = n == max(cfg.sizes)
        hnsw = bench_hnsw(cfg, mixture, n, queries, truth, sweep=largest)
        result.rows += hnsw.rows
        result.sweep += hnsw.sweep
    return result


# --- encoders -------------------------------------------------------------------------

_ADJ = ["red", "tiny", "glowing", "ancient", "wooden", "neon", "misty", "golden"]
_NOUN = ["fox", "lighthouse", "teapot", "robot", "violin", "castle", "bicycle", "whale"]
_SCENE = ["at dawn", "in the rain", "on a desk", "in a forest", "underwater", "in space"]
_STYLE = ["watercolour", "photo", "pixel art", "oil painting", "3D render", "line drawing"]


def sample_texts(n: int, seed: int = 0) -> list[str]:
    """``n`` distinct short prompt-like texts."""
    rng = np.random.default_rng([seed, 2])
    texts: list[str] = []
    while len(texts) < n:
        a, b, c, d = (str(rng.choice(words)) for words in (_ADJ, _NOUN, _SCENE, _STYLE))
        text = f"A {a} {b} {c}, {d}, variant {len(texts)}"
        texts.append(text)
    return texts


def sample_images(n: int, side: int = 512, seed: int = 0) -> list[Any]:
    """``n`` distinct RGB images: gradients, a few shapes and mild grain."""
    from PIL import Image, ImageDraw

    rng = np.random.default_rng([seed, 3])
    y, x = np.mgrid[0:side, 0:side].astype(np.float32) / side
    images = []
    for _ in range(n):
        a, b, c = rng.uniform(40, 220, 3)
        pixels = np.stack([a * x + 20, b * y + 30, c * (1 - x * y) + 20], axis=-1)
        pixels += rng.normal(0, 4, size=pixels.shape)
        img = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
        draw = ImageDraw.Draw(img)
        for _ in range(3):
            x0, y0 = rng.integers(0, side * 3 // 4, 2)
            w, h = rng.integers(side // 8, side // 3, 2)
            fill = tuple(int(v) for v in rng.integers(0, 256, 3))
            draw.ellipse([int(x0), int(y0), int(x0 + w), int(y0 + h)], fill=fill)
        images.append(img)
    return images


def _seconds(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def time_encoder(spec: str, items: list[Any], singles: int) -> dict[str, Any]:
    """Load, first-call, batched per-item (best of :data:`BATCH_REPEATS`) and single-item
    (median) times of one encoder. The content-hash cache is bypassed (``.encoder``), so
    every call really encodes.
    """
    from memory.encoders import get_encoder

    t0 = time.perf_counter()
    try:
        cached = get_encoder(spec)
    except (ImportError, RuntimeError, OSError, KeyError) as exc:
        return {"spec": spec, "error": str(exc)}
    load_s = time.perf_counter() - t0
    enc = cached.encoder
    t0 = time.perf_counter()
    enc.encode(items[-1:], role="query")
    first_s = time.perf_counter() - t0
    batch = items[:-1]
    batch_s = min(
        _seconds(lambda: enc.encode(batch, role="document")) for _ in range(BATCH_REPEATS)
    )
    single_ms = [
        1000 * _seconds(lambda i=i: enc.encode([i], role="query")) for i in batch[:singles]
    ]
    return {
        "spec": spec,
        "id": enc.id,
        "dim": enc.dim,
        "load_s": round(load_s, 3),
        "first_call_s": round(first_s, 3),
        "batch_items": len(batch),
        "batch_per_item_ms": round(batch_s * 1000 / len(batch), 2),
        "single_item_median_ms": round(statistics.median(single_ms), 2),
    }


def bench_encoders(seed: int = 0) -> dict[str, Any]:
    """The default text and image encoders (64 texts, 16 images of 512²)."""
    from memory.encoders import DEFAULT_IMAGE_ENCODER, DEFAULT_TEXT_ENCODER

    rows = [
        time_encoder(DEFAULT_TEXT_ENCODER, sample_texts(65, seed), singles=16),
        time_encoder(DEFAULT_IMAGE_ENCODER, sample_images(17, seed=seed), singles=4),
    ]
    torch = sys.modules.get("torch")
    threads = torch.get_num_threads() if torch is not None else None
    return {"torch_threads": threads, "rows": rows}


# --- the whole run --------------------------------------------------------------------


def speedups(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """HNSW over flat per size: query speed-up per thread setting, build and memory ratios."""
    out = []
    for n in sorted({r["size"] for r in rows}):
        by_kind = {r["kind"]: r for r in rows if r["size"] == n}
        if not {"flat", "hnsw"} <= set(by_kind):
            continue
        flat, hnsw = by_kind["flat"], by_kind["hnsw"]
        ratio = {
            f"query_speedup_{t}": round(
                flat["query"][t]["median_ms"] / hnsw["query"][t]["median_ms"], 2
            )
            for t in flat["query"]
        }
        ratio["build_ratio"] = round(hnsw["build_s"] / max(flat["build_s"], 1e-6), 1)
        ratio["memory_ratio"] = round(hnsw["index_bytes"] / max(flat["index_bytes"], 1), 3)
        out.append({"size": n, **ratio})
    return out


def recommend(sweep: list[dict[str, Any]], target_ms: float = TARGET_MS) -> dict[str, Any] | None:
    """At the largest swept size: the efSearch with the best recall within ``target_ms``."""
    if not sweep:
        return None
    n = max(r["size"] for r in sweep)
    fits = [r for r in sweep if r["size"] == n and r["median_ms"] <= target_ms]
    if not fits:
        return {"size": n, "ef_search": None, "target_ms": target_ms}
    best = max(fits, key=lambda r: (r["recall_at_k"], -r["ef_search"]))
    return {"target_ms": target_ms, **best}


def machine_info(cores: int) -> dict[str, Any]:
    """What the numbers were measured on."""
    return {
        "cores": cores,
        "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "faiss": faiss.__version__,
        "build_threads": cores,
        "query_threads": thread_counts(cores),
        "load_avg_1min_start": round(os.getloadavg()[0], 2),
    }


def run_bench(cfg: BenchConfig) -> dict[str, Any]:
    """Run every measurement of ``cfg``; returns the report (JSON-serialisable)."""
    cores = cpu_count()
    threads_before = faiss.omp_get_max_threads()
    t_start = time.perf_counter()
    mixture = make_mixture(cfg.dim, cfg.seed, cfg.n_clusters)
    queries = make_queries(mixture, cfg.queries, cfg.seed)
    rows: list[dict[str, Any]] = []
    sweep: list[dict[str, Any]] = []
    try:
        for n in cfg.sizes:
            result = bench_size(cfg, mixture, n, queries)
            rows += result.rows
            sweep += result.sweep
    finally:
        faiss.omp_set_num_threads(threads_before)
    report: dict[str, Any] = {
        "machine": machine_info(cores),
        "config": {**asdict(cfg), "hnsw": hnsw_params(cfg.k), "data": data_params()},
        "results": rows,
        "speedups": speedups(rows),
        "ef_sweep": sweep,
        "recommendation": recommend(sweep),
    }
    report["encoders"] = bench_encoders(cfg.seed) if cfg.encoders else None
    report["wall_s"] = round(time.perf_counter() - t_start, 1)
    report["machine"]["load_avg_1min_end"] = round(os.getloadavg()[0], 2)
    return report


def hnsw_params(k: int) -> dict[str, int]:
    """HNSW parameters of :mod:`memory.index` (efSearch as ``search`` sets it for ``k``)."""
    return {
        "M": HNSW_M,
        "efConstruction": HNSW_EF_CONSTRUCTION,
        "efSearch": max(HNSW_EF_SEARCH, 2 * k),
    }


def data_params() -> dict[str, Any]:
    """How the synthetic embeddings are drawn."""
    return {
        "kind": "gaussian mixture on the unit sphere",
        "spectrum_decay": SPECTRUM_DECAY,
        "mean_weight": MEAN_WEIGHT,
        "spread_range": list(SPREAD_RANGE),
        "cluster_weights": "lognormal(0, 1)",
    }


# --- output ---------------------------------------------------------------------------


def _mb(nbytes: int) -> str:
    return f"{nbytes / 1e6:,.1f}"


def _results_table(report: dict[str, Any]) -> list[str]:
    cfg, threads = report["config"], report["machine"]["query_threads"]
    head = f"{'size':>10} {'kind':5} {'build s':>9} {'index MB':>10} {'B/vec':>7}"
    for t in threads:
        head += f" {f'q {t}t med ms':>13} {f'q {t}t p95 ms':>13}"
    lines = [head + f" {'recall@' + str(cfg['k']):>9}"]
    for r in report["results"]:
        line = (
            f"{r['size']:>10,} {r['kind']:5} {r['build_s']:>9.3g} {_mb(r['index_bytes']):>10} "
            f"{r['bytes_per_vector']:>7.0f}"
        )
        for t in threads:
            q = r["query"][f"threads_{t}"]
            line += f" {q['median_ms']:>13.3f} {q['p95_ms']:>13.3f}"
        lines.append(line + f" {r['recall_at_k']:>9.4f}")
    return lines


def _speedup_lines(report: dict[str, Any]) -> list[str]:
    if not report["speedups"]:
        return []
    lines = [
        "",
        "HNSW vs flat (median query speed-up per FAISS thread setting; build, memory ratios):",
    ]
    for s in report["speedups"]:
        ups = ", ".join(
            f"{key.removeprefix('query_speedup_threads_')}t {val:g}x"
            for key, val in s.items()
            if key.startswith("query_speedup_")
        )
        lines.append(
            f"{s['size']:>10,}: queries {ups}; build {s['build_ratio']:g}x longer; "
            f"memory {s['memory_ratio']:g}x"
        )
    return lines


def _sweep_lines(report: dict[str, Any]) -> list[str]:
    if not report["ef_sweep"]:
        return []
    k, target = report["config"]["k"], TARGET_MS
    lines = [
        "",
        f"efSearch trade-off (HNSW, 1 FAISS thread, index.search per query; target {target:g} ms):",
        f"{'size':>10} {'efSearch':>9} {'med ms':>8} {'p95 ms':>8} {'recall@' + str(k):>9}  ok",
    ]
    for r in report["ef_sweep"]:
        ok = "yes" if r["median_ms"] <= target else "no"
        lines.append(
            f"{r['size']:>10,} {r['ef_search']:>9} {r['median_ms']:>8.3f} {r['p95_ms']:>8.3f} "
            f"{r['recall_at_k']:>9.4f}  {ok}"
        )
    rec = report["recommendation"]
    if rec and rec.get("ef_search"):
        lines.append(
            f"recommended efSearch at {rec['size']:,}: {rec['ef_search']} (recall@{k} "
            f"{rec['recall_at_k']:.4f}, median {rec['median_ms']:.3f} ms <= {target:g} ms)"
        )
    elif rec:
        lines.append(f"no swept efSearch meets {target:g} ms median at {rec['size']:,}")
    return lines


def _encoder_lines(report: dict[str, Any]) -> list[str]:
    enc = report.get("encoders")
    if not enc:
        return []
    lines = [
        "",
        f"Encoders (CPU, torch threads {enc['torch_threads']}; cache bypassed):",
        f"{'spec':20} {'dim':>5} {'load s':>8} {'1st call s':>11} {'batch ms/item':>14} "
        f"{'single ms':>10}",
    ]
    for r in enc["rows"]:
        if "error" in r:
            lines.append(f"{r['spec']:20} unavailable: {r['error']}")
            continue
        lines.append(
            f"{r['spec']:20} {r['dim']:>5} {r['load_s']:>8.2f} {r['first_call_s']:>11.3f} "
            f"{r['batch_per_item_ms']:>14.2f} {r['single_item_median_ms']:>10.2f}"
        )
    lines.append(
        "(batch: 64 texts / 16 images of 512² in one call, best of "
        f"{BATCH_REPEATS}; single: one item per call, median)"
    )
    return lines


def render(report: dict[str, Any]) -> str:
    """A plain-text table of the report."""
    cfg, machine, hnsw = report["config"], report["machine"], report["config"]["hnsw"]
    lines = [
        f"benchmarks.memory: dim {cfg['dim']}, {cfg['queries']} queries, top-{cfg['k']}, "
        f"Gaussian mixture of {cfg['n_clusters']:,} clusters; {machine['cores']} cores, "
        f"faiss {machine['faiss']}, builds on {machine['build_threads']} threads",
        f"HNSW M={hnsw['M']} efConstruction={hnsw['efConstruction']} efSearch={hnsw['efSearch']}; "
        "queries: one search call per query, 'q Nt' = FAISS on N OpenMP threads",
        "",
        *_results_table(report),
        *_speedup_lines(report),
        *_sweep_lines(report),
        *_encoder_lines(report),
        "",
        f"wall time {report['wall_s']:.1f} s; 1-min load average {machine['load_avg_1min_start']}"
        f" at start, {machine['load_avg_1min_end']} at end (other processes share the cores)",
    ]
    return "\n".join(lines)


# --- CLI ------------------------------------------------------------------------------


def parse_sizes(text: str) -> list[int]:
    """Comma-separated sizes; ``k`` and ``m`` suffixes allowed."""
    sizes = []
    for part in text.split(","):
        part = part.strip().lower()
        mult = {"k": 1000, "m": 1_000_000}.get(part[-1:], 1)
        sizes.append(int(float(part[:-1] if mult > 1 else part) * mult))
    return sizes


def parse_ints(text: str) -> list[int]:
    """Comma-separated integers."""
    return [int(p) for p in text.split(",") if p.strip()]


QUICK = {"sizes": "1000,10000", "queries": 50}
FULL = {"sizes": "1000,100000,1000000", "queries": 200}
"""Defaults of the quick run (the default) and of ``--full``; explicit flags beat both."""


def config_from_args(args: argparse.Namespace) -> BenchConfig:
    """Validate the CLI arguments; raises ``ValueError`` with a readable message."""
    preset = FULL if getattr(args, "full", False) else QUICK
    if getattr(args, "sizes", None) is None:
        args.sizes = preset["sizes"]
    if getattr(args, "queries", None) is None:
        args.queries = preset["queries"]
    sizes = parse_sizes(args.sizes)
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    if not sizes or min(sizes) < 1:
        raise ValueError("--sizes must be positive integers")
    if not kinds or set(kinds) - set(KINDS):
        raise ValueError(f"--kinds must be a comma-separated subset of {','.join(KINDS)}")
    if args.dim < 1 or args.queries < 1 or args.k < 1:
        raise ValueError("--dim, --queries and --k must be at least 1")
    return BenchConfig(
        sizes=tuple(sizes),
        dim=args.dim,
        queries=args.queries,
        k=args.k,
        kinds=kinds,  # type: ignore[arg-type]
        encoders=args.encoders,
        seed=args.seed,
        ef_sweep=tuple(parse_ints(args.ef_sweep)),
    )


def parser() -> argparse.ArgumentParser:
    """The benchmark's options."""
    bn = argparse.ArgumentParser(
        prog="python -m benchmarks.memory",
        description="Quick by default (1k and 10k vectors, about a minute); --full measures "
        "1k, 100k and 1M vectors (several minutes, a few GB of RAM for the indexes).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    bn.add_argument(
        "--full",
        action="store_true",
        help="the full run: --sizes 1000,100000,1000000 --queries 200 unless given",
    )
    bn.add_argument(
        "--sizes", help="memory sizes, k and m suffixes ok (default 1000,10000; --full: 1k,100k,1m)"
    )
    bn.add_argument("--dim", type=int, default=384, help="vector dimension (MiniLM: 384)")
    bn.add_argument(
        "--queries", type=int, help="queries per size and kind (default 50; --full: 200)"
    )
    bn.add_argument("--k", type=int, default=3, help="top-k per query")
    bn.add_argument("--kinds", default="flat,hnsw", help="index kinds, comma-separated")
    bn.add_argument(
        "--encoders",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also time the default text and image encoders",
    )
    bn.add_argument(
        "--ef-sweep",
        default="64,128,256",
        help="HNSW efSearch values for the trade-off table ('' for none)",
    )
    bn.add_argument("--seed", type=int, default=0)
    bn.add_argument("--out", help="also write the report JSON here")
    return bn


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its report; returns the exit code."""
    args = parser().parse_args(argv)
    try:
        cfg = config_from_args(args)
    except ValueError as exc:
        print(f"benchmarks.memory: {exc}", file=sys.stderr)
        return 2
    largest = max(cfg.sizes)
    note = (
        "quick run; add --full for 100k and 1M vectors"
        if not getattr(args, "full", False) and largest < 1_000_000
        else "large sizes: this takes minutes and GBs of RAM for the indexes"
    )
    sizes = ", ".join(f"{n:,}" for n in cfg.sizes)
    print(f"benchmarks.memory: {sizes} vectors ({note})", file=sys.stderr)
    report = run_bench(cfg)
    print(render(report))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
