"""Annotators against a real service (``judge serve`` on loopback, its own redis-server).

Closed loop (default): each annotator opens the page, then fetches tasks, loads the two
images and answers until the campaign is done — throughput under saturation. Open loop
(``--mode open``): each annotator thinks ``--think-s`` seconds (±50%, uniform) between
seeing a task and answering, for ``--duration-s`` seconds — latency under a realistic
arrival rate. Images are cached per annotator and revalidated with ``If-None-Match`` (a
``304`` counts as an image request). Reports p50/p95 latency of the page, ``next``, image and
answer requests, and the service's CPU time per accepted answer (the service process and its
redis-server, read from the OS before and after the run).

Example::

    $ python -m benchmarks.campaign_load --annotators 50 --pairs 500 --votes-per-item 5
    $ python -m benchmarks.campaign_load --mode open --annotators 200 --think-s 2 \
          --duration-s 60 --pairs 5000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import psutil

from benchmarks.load import start_service
from tests.fakes.provider import stop_process


def _png(n: int) -> str:
    import base64
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (256, 256), ((n * 37) % 256, (n * 91) % 256, (n * 53) % 256)).save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def body(pairs: int, votes: int) -> dict:
    images = [_png(n) for n in range(40)]
    items = [
        {
            "id": f"p{i}",
            "prompt": f"prompt {i}",
            "a": {"model": f"m{i % 8}", "image": images[i % 40]},
            "b": {"model": f"m{(i + 1) % 8}", "image": images[(i + 7) % 40]},
        }
        for i in range(pairs)
    ]
    return {
        "id": "load",
        "kind": "pairwise",
        "criterion": "preference",
        "items": items,
        "votes_per_item": votes,
        "min_seconds": 0.0,
        "session_size": 5,
    }


async def annotator(
    client: httpx.AsyncClient,
    token: str,
    lat: dict[str, list[float]],
    think_s: float = 0.0,
    until: float = float("inf"),
) -> int:
    """One annotator's session: the number of answers accepted. ``think_s`` > 0: wait
    that long (±50%) before each answer, and stop at ``until`` (``time.perf_counter``)."""
    rng = random.Random(token)
    cached: set[str] = set()  # image URLs this annotator's browser holds

    async def timed(kind: str, method: str, url: str, **kw: object) -> httpx.Response:
        t = time.perf_counter()
        r = await client.request(method, url, **kw)  # type: ignore[arg-type]
        lat[kind].append(time.perf_counter() - t)
        if r.status_code >= 400:  # a 304 is a revalidated image, not a failure
            r.raise_for_status()
        return r

    if think_s > 0:  # arrivals spread over one think time, not all at once
        await asyncio.sleep(rng.uniform(0, think_s))
    await timed("page", "GET", f"/ui/label/{token}")
    done = 0
    while time.perf_counter() < until:
        r = await timed("next", "GET", f"/v1/label/{token}/next")
        if r.status_code == 204:
            return done
        task = r.json()["task"]
        for url in task["images"].values():
            if url in cached:
                key = url.rsplit("/", 1)[-1]
                await timed("image", "GET", url, headers={"If-None-Match": f'"{key}"'})
            else:
                await timed("image", "GET", url)
                cached.add(url)
        if think_s > 0:
            await asyncio.sleep(think_s * rng.uniform(0.5, 1.5))
        got = await timed(
            "answer", "POST", f"/v1/label/{token}/answers", json={"task": task["id"], "choice": "a"}
        )
        done += bool(got.json()["accepted"])
    return done


def cpu_seconds(pid: int) -> dict[str, float]:
    """User + system CPU seconds of a process (``service``) and its children (``redis``)."""
    proc = psutil.Process(pid)
    own = proc.cpu_times()
    kids = 0.0
    for child in proc.children(recursive=True):
        try:
            t = child.cpu_times()
            kids += t.user + t.system
        except psutil.NoSuchProcess:
            continue
    return {"service": own.user + own.system, "redis": kids}


def pct(xs: list[float], q: float) -> float:
    return round(1000 * statistics.quantiles(xs, n=100)[q - 1], 1) if len(xs) > 1 else 0.0


async def drive(
    url: str,
    annotators: int,
    pairs: int,
    votes: int,
    pid: int,
    think_s: float = 0.0,
    duration_s: float = 0.0,
) -> dict:
    admin = {"Authorization": "Bearer admin"}
    async with httpx.AsyncClient(base_url=url, timeout=120, headers=admin) as c:
        (await c.post("/v1/campaigns", json=body(pairs, votes))).raise_for_status()
        inv = (await c.post("/v1/campaigns/load/invitations", json={"count": annotators})).json()
    lat: dict[str, list[float]] = {"page": [], "next": [], "image": [], "answer": []}
    limits = httpx.Limits(max_connections=annotators + 10)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as c:
        before = cpu_seconds(pid)
        t0 = time.perf_counter()
        until = t0 + duration_s if duration_s > 0 else float("inf")
        answered = await asyncio.gather(
            *(annotator(c, i["token"], lat, think_s, until) for i in inv["invitations"])
        )
        wall = time.perf_counter() - t0
        after = cpu_seconds(pid)
    n = max(1, sum(answered))
    return {
        "mode": "open" if think_s > 0 else "closed",
        "annotators": annotators,
        "think_s": think_s,
        "answers": sum(answered),
        "wall_s": round(wall, 1),
        "answers_per_s": round(sum(answered) / wall, 1),
        "cpu_ms_per_answer": {
            k: round(1000 * (after[k] - before[k]) / n, 2) for k in ("service", "redis")
        },
        **{f"{k}_ms": {"p50": pct(v, 50), "p95": pct(v, 95), "n": len(v)} for k, v in lat.items()},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.campaign_load")
    p.add_argument("--annotators", type=int, default=50)
    p.add_argument("--pairs", type=int, default=500)
    p.add_argument("--votes-per-item", type=int, default=5)
    p.add_argument("--mode", choices=("closed", "open"), default="closed")
    p.add_argument("--think-s", type=float, default=2.0, help="open loop: seconds per answer")
    p.add_argument("--duration-s", type=float, default=60.0, help="open loop: run this long")
    args = p.parse_args(argv)
    think, duration = (args.think_s, args.duration_s) if args.mode == "open" else (0.0, 0.0)
    os.environ["JUDGE_ADMIN_KEYS"] = "admin"
    os.environ["JUDGE_AUTH_FAILURES_PER_MINUTE"] = "0"
    os.environ["JUDGE_RATE_LIMIT_PER_MINUTE"] = "0"
    with tempfile.TemporaryDirectory() as tmp:
        # the load generator is one address: no per-address limit; the closed loop answers
        # faster than any person, so no per-link limit there either
        tuned = {"JUDGE_LABEL_PER_ADDRESS_PER_MINUTE": "0"}
        if args.mode == "closed":
            tuned["JUDGE_LABEL_PER_TOKEN_PER_MINUTE"] = "0"
        proc, url = start_service(1, "http://127.0.0.1:9/v1", Path(tmp), tuned=tuned)
        try:
            report = asyncio.run(
                drive(url, args.annotators, args.pairs, args.votes_per_item, proc.pid,
                      think, duration)
            )  # fmt: skip
        finally:
            stop_process(proc)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
