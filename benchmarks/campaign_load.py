"""Annotators against a real service (``judge serve`` on loopback, its own redis-server).

Closed loop (default): each annotator opens the page, then fetches tasks, loads the two
images and answers until the campaign is done — throughput under saturation. Open loop
(``--mode open``): each annotator thinks ``--think-s`` seconds (±50%, uniform) between
seeing a task and answering, for ``--duration-s`` seconds — latency under a realistic
arrival rate. Each annotator has one keep-alive connection (a lean HTTP/1.1 client,
:mod:`benchmarks.support.http1`, so the generator is not what saturates) and checks every
reply. Images are cached per annotator: used from the cache as a browser uses an
``immutable`` response, or with ``--revalidate`` asked for again with ``If-None-Match`` (a
``304`` counts as an image request). Reports p50/p95 latency of the page, ``next``, image and
answer requests, the CPU time per accepted answer of the service process, its redis-server
and the load generator (read from the OS before and after the run), and the load average.

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
from typing import Any

import httpx
import psutil

from benchmarks.load import start_service
from benchmarks.support.http1 import Connection, Reply
from tests.fakes.provider import stop_process


def _png(n: int) -> str:
    import base64
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (256, 256), ((n * 37) % 256, (n * 91) % 256, (n * 53) % 256)).save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def body(pairs: int, votes: int, cid: str = "load") -> dict:
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
        "id": cid,
        "kind": "pairwise",
        "criterion": "preference",
        "items": items,
        "votes_per_item": votes,
        "min_seconds": 0.0,
        "session_size": 5,
    }


class Refused(RuntimeError):
    """A reply the benchmark did not expect (every reply is checked)."""


async def annotator(
    url: str,
    token: str,
    lat: dict[str, list[float]],
    think_s: float = 0.0,
    until: float = float("inf"),
    revalidate: bool = False,
) -> int:
    """One annotator's session on its own keep-alive connection: the number of answers
    accepted. ``think_s`` > 0: wait that long (±50%) before each answer, and stop at
    ``until`` (``time.perf_counter``). An image already fetched is used from the cache, as
    a browser does with an ``immutable`` response — or, with ``revalidate``, asked for again
    with ``If-None-Match`` (a ``304``)."""
    rng = random.Random(token)
    cached: set[str] = set()  # image URLs this annotator's browser holds
    host, port = url.removeprefix("http://").split(":")
    conn = await Connection.open(host, int(port))

    async def timed(kind: str, method: str, path: str, ok: tuple[int, ...], **kw: Any) -> Reply:
        t = time.perf_counter()
        r = await conn.request(method, path, **kw)
        lat[kind].append(time.perf_counter() - t)
        if r.status not in ok:
            raise Refused(f"{method} {path}: {r.status} {r.body[:200]!r}")
        return r

    try:
        if think_s > 0:  # arrivals spread over one think time, not all at once
            await asyncio.sleep(rng.uniform(0, think_s))
        page = await timed("page", "GET", f"/ui/label/{token}", (200,))
        if b'id="question"' not in page.body:
            raise Refused("the label page has no question")
        done = 0
        while time.perf_counter() < until:
            r = await timed("next", "GET", f"/v1/label/{token}/next", (200, 204))
            if r.status == 204:
                return done
            task = r.json()["task"]
            for path in task["images"].values():
                key = path.rsplit("/", 1)[-1]
                if path not in cached:
                    got = await timed("image", "GET", path, (200,))
                    if got.headers.get("etag") != f'"{key}"' or not got.body:
                        raise Refused(f"GET {path}: no image or a wrong ETag")
                    cached.add(path)
                elif revalidate:
                    await timed("image", "GET", path, (304,), headers={"If-None-Match": f'"{key}"'})
            if think_s > 0:
                await asyncio.sleep(think_s * rng.uniform(0.5, 1.5))
            sent = json.dumps({"task": task["id"], "choice": "a"}).encode()
            got = await timed("answer", "POST", f"/v1/label/{token}/answers", (200,),
                              headers=JSON, body=sent)  # fmt: skip
            if not got.json()["accepted"]:
                raise Refused(f"answer not accepted: {got.body!r}")
            done += 1
        return done
    finally:
        await conn.close()


JSON = {"Content-Type": "application/json"}


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
    revalidate: bool = False,
    cid: str = "load",
) -> dict:
    """Create the campaign, invite ``annotators`` and run them (see :func:`annotator`)
    against the service at ``url`` (process ``pid``); the report."""
    admin = {"Authorization": "Bearer admin"}
    async with httpx.AsyncClient(base_url=url, timeout=120, headers=admin) as c:
        (await c.post("/v1/campaigns", json=body(pairs, votes, cid))).raise_for_status()
        inv = (await c.post(f"/v1/campaigns/{cid}/invitations", json={"count": annotators})).json()
    lat: dict[str, list[float]] = {"page": [], "next": [], "image": [], "answer": []}
    me = psutil.Process()
    before, mine = cpu_seconds(pid), sum(me.cpu_times()[:2])
    t0 = time.perf_counter()
    until = t0 + duration_s if duration_s > 0 else float("inf")
    answered = await asyncio.gather(
        *(annotator(url, i["token"], lat, think_s, until, revalidate) for i in inv["invitations"])
    )
    wall = time.perf_counter() - t0
    after, mine = cpu_seconds(pid), sum(me.cpu_times()[:2]) - mine
    n = max(1, sum(answered))
    return {
        "mode": "open" if think_s > 0 else "closed",
        "annotators": annotators,
        "think_s": think_s,
        "images": "revalidated" if revalidate else "cached (immutable)",
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "answers": sum(answered),
        "wall_s": round(wall, 1),
        "answers_per_s": round(sum(answered) / wall, 1),
        "cpu_ms_per_answer": {
            **{k: round(1000 * (after[k] - before[k]) / n, 2) for k in ("service", "redis")},
            "load_generator": round(1000 * mine / n, 2),
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
    p.add_argument(
        "--revalidate",
        action="store_true",
        help="ask for an image already held again with If-None-Match (a 304) instead of "
        "using it from the cache as a browser does with an immutable response",
    )
    args = p.parse_args(argv)
    think, duration = (args.think_s, args.duration_s) if args.mode == "open" else (0.0, 0.0)
    os.environ["JUDGE_SERVE_ADMIN_KEYS"] = "admin"
    os.environ["JUDGE_SERVE_AUTH_FAILURES_PER_MINUTE"] = "0"
    os.environ["JUDGE_SERVE_RATE_LIMIT_PER_MINUTE"] = "0"
    with tempfile.TemporaryDirectory() as tmp:
        # the load generator is one address: no per-address limit; the closed loop answers
        # faster than any person, so no per-link limit there either
        tuned = {"JUDGE_SERVE_LABEL_PER_ADDRESS_PER_MINUTE": "0"}
        if args.mode == "closed":
            tuned["JUDGE_SERVE_LABEL_PER_TOKEN_PER_MINUTE"] = "0"
        proc, url = start_service(1, "http://127.0.0.1:9/v1", Path(tmp), tuned=tuned)
        try:
            report = asyncio.run(
                drive(url, args.annotators, args.pairs, args.votes_per_item, proc.pid,
                      think, duration, args.revalidate)
            )  # fmt: skip
        finally:
            stop_process(proc)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
