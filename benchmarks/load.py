"""``python -m benchmarks.load``: N concurrent clients against a running service, with the fake
provider at a per-call latency L, for 1 and 2 HTTP worker processes.

Each submission carries a real photograph (:mod:`benchmarks.support.photos`, 1024² PNGs,
taking turns; ``--image synthetic`` for the old smooth gradient). Reports throughput, p50/p95
latency as multiples of L, and CPU per submission under the load (the service's processes, read
from ``/proc/<pid>/stat`` before and after the run; the fake provider's and the clients'
separately), then the service's CPU per submission one at a time. The service runs in its
**default configuration** first (nothing set but the model and its endpoint, and the
``JUDGE_*`` variables of the benchmark's own environment, which the service inherits, so a
configured service can be measured; the report names them);
``--tuned NAME=VALUE`` adds runs with those environment variables, labelled ``tuned`` in the
report. ``--rate-limit R`` makes the fake refuse calls beyond R a second (HTTP 429 with
rate-limit headers), as a provider with a quota does. ``--service-url`` drives a service
started elsewhere (with its own provider), so service, provider and clients can each have
their own machine.

Example::

    $ python -m benchmarks.load --clients 64 --latency 0.3 --requests 640
    $ python -m benchmarks.load --workers 2 --tuned JUDGE_LLM_CONCURRENCY=512
    $ python -m benchmarks.load --service-url http://10.0.0.5:8000 --service-pid 4242
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import psutil
import uvloop
from PIL import Image
from tqdm import tqdm

from benchmarks.support.photos import sample_photos
from tests.fakes.provider import spawn_fake_provider, stop_process


def synthetic_png(side: int = 1024, image_seed: int = 1) -> bytes:
    """A ``side``² PNG of a smooth gradient with light noise drawn from ``image_seed``."""
    y, x = np.mgrid[0:side, 0:side] / side
    rgb = np.stack([220 * x + 20, 160 * y + 40, 200 * (1 - x * y) + 30], axis=-1)
    rgb += np.random.default_rng(image_seed).normal(0, 3, rgb.shape)
    buf = io.BytesIO()
    Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8)).save(buf, "PNG")
    return buf.getvalue()


def oe_submission(
    checkpoints: int = 6, side: int = 1024, image_seed: int = 1, png: bytes | None = None
) -> dict:
    """An OE submission with ``checkpoints`` paired checks and one image: ``png`` (e.g. a
    photo of :func:`benchmarks.support.photos.sample_photos`), else a synthetic ``side``² PNG
    whose noise is drawn from ``image_seed`` (another seed, another image of the same kind)."""
    raw = png if png is not None else synthetic_png(side, image_seed)
    checks = [
        {
            "id": f"c{i}",
            "primitive": "implicit_style",
            "prompt_check": f"The prompt names visual cue {i}.",
            "image_check": f"The image shows visual cue {i}.",
        }
        for i in range(checkpoints)
    ]
    return {
        "task": {
            "id": "oe_load",
            "category": "OE",
            "checklist": checks,
            "brief": "A travel poster that feels like a warm evening by the sea.",
        },
        "prompt": "Travel poster, warm evening light over a calm sea, soft gradients",
        "images": [f"data:{_mime(raw)};base64," + base64.b64encode(raw).decode()],
    }


def _mime(raw: bytes) -> str:
    return "image/jpeg" if raw.startswith(b"\xff\xd8") else "image/png"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cpu(pid: int | None) -> float:
    """CPU seconds (user + system) of ``pid`` and its children so far (their
    ``/proc/<pid>/stat``); 0 without a process."""
    if pid is None:
        return 0.0
    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            continue
    return total


def service_env(
    provider_url: str,
    data_dir: Path,
    model: str = "openai/fake-judge",
    tuned: dict[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment :func:`start_service` gives ``judge serve``: ``environ`` (default this
    process's) with every ``JUDGE_*`` variable kept, so a configured service (admin keys,
    limits, ...) can be benchmarked, but without ``REDIS_URL`` (the service runs on its own);
    the benchmark's model, endpoint, key and data folder, then ``tuned``, override the
    caller's values.

    Example:
        >>> env = service_env("http://127.0.0.1:9/v1", Path("/tmp/d"), tuned={"JUDGE_X": "2"},
        ...     environ={"JUDGE_SERVE_ADMIN_KEYS": "k", "JUDGE_MODEL": "m", "PATH": "/bin"})
        >>> env["JUDGE_SERVE_ADMIN_KEYS"], env["JUDGE_MODEL"], env["JUDGE_X"], env["PATH"]
        ('k', 'openai/fake-judge', '2', '/bin')
    """
    env = dict(os.environ if environ is None else environ)
    env.pop("REDIS_URL", None)
    env.update(
        {
            "JUDGE_MODEL": model,
            "JUDGE_API_BASE": provider_url,
            "JUDGE_API_KEY": "bench",
            "JUDGE_DATA_DIR": str(data_dir),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            **(tuned or {}),
        }
    )
    return env


def inherited(environ: Mapping[str, str] | None = None) -> list[str]:
    """The caller's ``JUDGE_*`` variables the service keeps (:func:`service_env`): the
    names only (values can be keys), for the report."""
    own = set(service_env("", Path(), environ={}))
    names = os.environ if environ is None else environ
    return sorted(k for k in names if k.startswith("JUDGE_") and k not in own)


def start_service(
    workers: int,
    provider_url: str,
    data_dir: Path,
    model: str = "openai/fake-judge",
    tuned: dict[str, str] | None = None,
) -> tuple[subprocess.Popen, str]:
    """Start ``judge serve`` on a free loopback port with ``workers`` HTTP workers and wait
    until it is ready; returns the process (its own session) and its URL. The service sees
    this process's ``JUDGE_*`` variables under the benchmark's own (:func:`service_env`)."""
    port = _port()
    env = service_env(provider_url, data_dir, model, tuned)
    cmd = [
        sys.executable,
        "-m",
        "judge.cli.main",
        "serve",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--workers-inline",
        "0",
    ]
    proc = subprocess.Popen(
        cmd,
        env=env,
        stdout=subprocess.DEVNULL,
        # a file, not a pipe nobody reads: a full pipe would block the service's logging
        stderr=(data_dir / "service.log").open("wb"),
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300  # a loaded 2-core machine takes minutes for 2 workers
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log = (data_dir / "service.log").read_text(errors="replace")
            raise RuntimeError(f"service exited: {log[-2000:]}")
        try:
            if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    proc.kill()
    raise RuntimeError("service did not become ready in 300 s")


async def _drive(
    url: str, bodies: list[bytes], clients: int, total: int, rate: float = 0.0
) -> tuple[list[float], int]:
    """Closed loop (each client sends again as soon as it is answered) or, with ``rate`` > 0,
    open loop: request ``i`` leaves at ``i / rate`` seconds, at most ``clients`` in flight.
    Request ``i`` sends ``bodies[i % len(bodies)]``."""
    latencies: list[float] = []
    errors = 0
    sent = 0
    start = time.perf_counter()
    bar = tqdm(total=total, desc="requests", file=sys.stderr, leave=False)
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(timeout=300, limits=limits) as client:

        async def one_client() -> None:
            nonlocal sent, errors
            while sent < total:
                body = bodies[sent % len(bodies)]
                sent += 1
                if rate > 0:
                    await asyncio.sleep(max(0.0, start + (sent - 1) / rate - time.perf_counter()))
                t = time.perf_counter()
                try:
                    resp = await client.post(
                        f"{url}/v1/score",
                        content=body,
                        headers={"content-type": "application/json"},
                    )
                except httpx.HTTPError:  # e.g. a worker process died: an error, not a crash
                    errors += 1
                    bar.update(1)
                    continue
                if resp.status_code == 200:
                    latencies.append(time.perf_counter() - t)
                else:
                    errors += 1
                bar.update(1)

        await asyncio.gather(*(one_client() for _ in range(clients)))
    bar.close()
    return latencies, errors


def bodies_for(
    checkpoints: int, batching: str, image: str = "photo", images: int | None = None
) -> list[bytes]:
    """The request bodies the clients send in turn: ``images`` submissions, each with another
    photo (default: every packaged photo) or another synthetic image (default: one)."""
    options: dict[str, Any] = {"cache": False, "checkpoint_batching": batching}
    if batching == "per_modality":  # the cheap configuration batches subjective skills too
        options["subjective_batching"] = "per_modality"
    if image in ("photo", "jpeg"):
        photos = sample_photos(fmt="JPEG" if image == "jpeg" else "PNG")
        n = len(photos) if images is None else images
        if n > len(photos):
            raise SystemExit(f"--images: {len(photos)} photos are packaged, asked for {n}")
        pngs: list[bytes | None] = list(photos[:n])
    else:
        pngs = [None] * (images or 1)
    return [
        json.dumps(
            {
                "submission": oe_submission(checkpoints, image_seed=1 + i, png=png),
                "options": options,
            }
        ).encode()
        for i, png in enumerate(pngs)
    ]


def run(
    latency: float,
    clients: int,
    total: int,
    workers: list[int],
    checkpoints: int,
    batching: str = "per_checkpoint",
    rate: float = 0.0,
    model: str = "openai/fake-judge",
    tuned: dict[str, str] | None = None,
    rate_limit: float = 0.0,
    repeats: int = 1,
    images: int | None = None,
    image: str = "photo",
    one_at_a_time: int = 16,
    service_url: str | None = None,
    service_pid: int | None = None,
) -> dict:
    """The benchmark; returns the report: the default configuration's runs first (keys
    ``1_worker``, ``2_workers``), then the tuned ones (``1_worker tuned``, ...).

    With ``repeats`` > 1 each run is made that many times, each on a fresh service: a run's
    figures are then the medians, and ``each`` lists the single runs in order.

    ``images`` distinct images take turns, one per submission (photos: default all of them;
    synthetic: default 1, the same image in every submission, which the fake provider decodes
    once and then finds in its cache). After the loaded run, ``one_at_a_time`` submissions
    are sent one after another for the service's CPU per submission without load.

    With ``service_url`` nothing is started: the clients drive that service (which has its
    own provider; ``latency`` should be that provider's), under the label ``service``, and
    its CPU is measured when ``service_pid`` (the process of ``judge serve``, whose children
    are counted too) is given and on this machine."""
    bodies = bodies_for(checkpoints, batching, image, images)
    report: dict[str, Any] = {
        "latency_L_s": latency,
        "clients": clients,
        "requests": total,
        "checkpoints": checkpoints,
        "batching": batching,
        "rate_per_s": rate or None,
        "model": model,
        "body_bytes": len(bodies[0]),
        "image": image,
        "images": len(bodies),
        "provider_rate_limit_per_s": rate_limit or None,
        "tuned": dict(tuned or {}),
        "repeats": repeats,
        "service_url": service_url,
        "inherited_env": [] if service_url else inherited(),
        "load_average": None,
        "runs": {},
    }
    load = Load(clients, total, rate, latency, one_at_a_time)
    if service_url:
        for _ in range(repeats):
            one = load.measure(service_url.rstrip("/"), service_pid, bodies)
            report["runs"].setdefault("service", []).append(one)
    else:
        fake, provider_url = spawn_fake_provider(latency=latency, rate_limit=rate_limit)
        configs = [("", {})] + ([(" tuned", dict(tuned))] if tuned else [])
        try:
            for (label, env), w, _ in itertools.product(configs, workers, range(repeats)):
                with tempfile.TemporaryDirectory() as tmp:
                    proc, url = start_service(w, provider_url, Path(tmp), model, env)
                    try:
                        one = load.measure(url, proc.pid, bodies, provider_url, fake.pid)
                    finally:
                        os.killpg(proc.pid, 15)
                        proc.wait(timeout=30)
                        log = (Path(tmp) / "service.log").read_text(errors="replace")
                if one["errors"]:  # what the service said (its stderr), to tell why
                    one["log_tail"] = log[-3000:]
                name = f"{w}_worker{'s' if w > 1 else ''}{label}"
                report["runs"].setdefault(name, []).append(one)
        finally:
            stop_process(fake)
    report["load_average"] = [round(x, 2) for x in os.getloadavg()]
    report["runs"] = {name: _medians(each) for name, each in report["runs"].items()}
    return report


class Load:
    """One measured run's recipe: the load (clients, submissions, open or closed loop) and
    the submissions sent one at a time after it."""

    def __init__(
        self, clients: int, total: int, rate: float, latency: float, one_at_a_time: int
    ) -> None:
        self.clients, self.total, self.rate = clients, total, rate
        self.latency, self.one_at_a_time = latency, one_at_a_time

    def measure(
        self,
        url: str,
        service_pid: int | None,
        bodies: list[bytes],
        provider_url: str | None = None,
        provider_pid: int | None = None,
    ) -> dict[str, Any]:
        """Warm the service up, run the load, then the submissions one at a time; the row."""
        uvloop.run(_drive(url, bodies, min(self.clients, 4), 8))  # warm-up
        refused0 = _refused(provider_url) if provider_url else 0
        cpu0, fcpu0 = _cpu(service_pid), _cpu(provider_pid)
        ccpu0, t0 = time.process_time(), time.perf_counter()
        lat, errors = uvloop.run(_drive(url, bodies, self.clients, self.total, self.rate))
        wall = time.perf_counter() - t0
        cpu, fcpu = _cpu(service_pid) - cpu0, _cpu(provider_pid) - fcpu0
        ccpu = time.process_time() - ccpu0
        refused = _refused(provider_url) - refused0 if provider_url else None
        alone = None
        if self.one_at_a_time:
            before = _cpu(service_pid)
            done, _ = uvloop.run(_drive(url, bodies, 1, self.one_at_a_time))
            alone = 1000 * (_cpu(service_pid) - before) / max(1, len(done))
        lat.sort()
        n = max(1, len(lat))
        known = service_pid is not None
        return {
            "ok": len(lat),
            "errors": errors,
            "wall_s": round(wall, 2),
            "throughput_per_s": round(len(lat) / wall, 2),
            "p50_x_L": round(statistics.median(lat) / self.latency, 2) if lat else None,
            "p95_x_L": round(lat[int(0.95 * (len(lat) - 1))] / self.latency, 2) if lat else None,
            "service_cpu_ms_per_request": round(1000 * cpu / n, 1) if known else None,
            "service_cpu_ms_one_at_a_time": round(alone, 1) if known and alone else None,
            "provider_cpu_ms_per_request": round(1000 * fcpu / n, 1) if provider_pid else None,
            "client_cpu_ms_per_request": round(1000 * ccpu / n, 1),
            "provider_429s": refused,
            "load_average_1min": round(os.getloadavg()[0], 2),
        }


def _refused(provider_url: str) -> int:
    """How many calls the fake provider has refused for its rate limit so far."""
    root = provider_url.rsplit("/v1", 1)[0]
    return int(httpx.get(f"{root}/_admin/stats", timeout=30).json()["rate_limited"])


def _medians(each: list[dict]) -> dict:
    """One run's row: the run itself, or with repeats the median of every figure and the
    single runs under ``each``."""
    if len(each) == 1:
        return each[0]
    row: dict[str, Any] = {}
    for key in each[0]:
        values = [r[key] for r in each if isinstance(r.get(key), int | float)]
        if len(values) == len(each):  # a figure of every run (not the log tail)
            mid = statistics.median(values)
            whole = all(isinstance(v, int) for v in values) and float(mid).is_integer()
            row[key] = int(mid) if whole else round(mid, 2)
        elif all(r.get(key) is None for r in each):  # not measured in this set-up
            row[key] = None
    tails = [r["log_tail"] for r in each if "log_tail" in r]
    if tails:
        row["log_tail"] = tails[-1]
    row["each"] = each
    return row


COLUMNS = [
    ("ok", "ok"),
    ("errors", "errors"),
    ("throughput_per_s", "req/s"),
    ("p50_x_L", "p50 ×L"),
    ("p95_x_L", "p95 ×L"),
    ("service_cpu_ms_per_request", "svc CPU"),
    ("service_cpu_ms_one_at_a_time", "svc alone"),
    ("provider_cpu_ms_per_request", "fake CPU"),
    ("client_cpu_ms_per_request", "clients"),
]
"""Report keys and their short column headings (the JSON keeps the long names, and the wall
time of each run)."""
LIMITED = ("provider_429s", "429s")
"""The column added when the fake provider has a rate limit: the calls it refused."""


def render(report: dict) -> str:
    """A table under 100 characters wide, headed by the run's settings.

    Example:
        >>> run = {"ok": 8, "errors": 0, "throughput_per_s": 3.1, "p50_x_L": 1.2,
        ...        "p95_x_L": 1.9, "service_cpu_ms_per_request": 40.0,
        ...        "provider_cpu_ms_per_request": 2.0, "client_cpu_ms_per_request": 3.0,
        ...        "wall_s": 2.6}
        >>> rep = {"clients": 4, "requests": 8, "latency_L_s": 0.3, "checkpoints": 6,
        ...        "body_bytes": 100, "batching": "per_checkpoint", "rate_per_s": 0,
        ...        "model": "openai/fake-judge", "tuned": {"JUDGE_LLM_CONCURRENCY": "512"},
        ...        "runs": {"1_worker": run, "2_workers tuned": run}}
        >>> max(len(line) for line in render(rep).splitlines()) <= 100
        True
    """
    loop = f"open loop at {report['rate_per_s']}/s" if report["rate_per_s"] else "closed loop"
    limit = report.get("provider_rate_limit_per_s")
    tuned = report.get("tuned") or {}
    names = [n + (" median" if r.get("each") else "") for n, r in report["runs"].items()]
    width = max([16, *(len(n) + 1 for n in names)])
    columns = [*COLUMNS, LIMITED] if limit else COLUMNS
    inherited_env = " ".join(report.get("inherited_env") or [])
    inherited_lines = (
        textwrap.wrap(
            f"  inherited from this shell: {inherited_env}", width=100, subsequent_indent="    "
        )
        if inherited_env
        else []
    )
    lines = [
        f"benchmarks.load: {report['clients']} clients, {report['requests']} requests, "
        f"L = {report['latency_L_s']} s, {loop}",
        f"  OE task, {report['checkpoints']} checkpoints, {report['batching']}, cache off",
        f"  one 1024² {report.get('image', 'photo')} per submission "
        f"({report['body_bytes']:,} byte bodies): " + _distinct(report.get("images", 1)),
        (
            f"  the service at {report['service_url']} (started elsewhere)"
            if report.get("service_url")
            else f"  model route {report['model']}"
            + (f", provider rate limit {limit}/s" if limit else "")
        ),
        "  runs: the default configuration"
        + (", then tuned: " + " ".join(f"{k}={v}" for k, v in tuned.items()) if tuned else ""),
        *inherited_lines,
        "  CPU, ms per submission: the service under the load (svc CPU) and one at a time "
        "(svc alone),",
        "  the fake provider, this benchmark's clients; load average at the end: "
        + " ".join(str(x) for x in report.get("load_average") or ["?"]),
        "",
        f"{'run':{width}}" + "".join(f"{t:>{max(7, len(t) + 2)}}" for _, t in columns),
    ]
    for name, r in report["runs"].items():
        rows = [(f"{name} #{i}", one) for i, one in enumerate(r.get("each", []), 1)]
        for label, one in [*rows, (f"{name} median" if rows else name, r)]:
            lines.append(
                f"{label:{width}}"
                + "".join(
                    f"{_cell(one.get(key)):>{max(7, len(title) + 2)}}" for key, title in columns
                )
            )
    return "\n".join(lines)


def _cell(value: object) -> str:
    return "-" if value is None else str(value)


def _distinct(images: int) -> str:
    return "the same image every time" if images == 1 else f"{images} images taking turns"


def parser() -> argparse.ArgumentParser:
    """The benchmark's options."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.load",
        description="concurrent clients against a live service (fake provider)",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--latency", type=float, default=0.3, help="per-call provider latency L (s)")
    p.add_argument("--clients", type=int, default=64, help="concurrent clients")
    p.add_argument("--requests", type=int, default=640, help="requests per run")
    p.add_argument("--workers", default="1,2", help="HTTP worker processes to compare")
    p.add_argument("--checkpoints", type=int, default=12, help="checkpoints in the OE task")
    p.add_argument(
        "--batching",
        choices=["per_checkpoint", "per_modality"],
        default="per_checkpoint",
        help="checkpoint batching of the scored requests",
    )
    p.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="open loop: requests per second (0: closed loop, clients resend at once)",
    )
    p.add_argument(
        "--model",
        default="openai/fake-judge",
        help="litellm route to the fake provider (e.g. hosted_vllm/fake-judge)",
    )
    p.add_argument(
        "--tuned",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="also run with these service environment variables (labelled tuned), e.g. "
        "JUDGE_LLM_CONCURRENCY=512",
    )
    p.add_argument(
        "--rate-limit",
        type=float,
        default=0.0,
        help="the fake provider refuses calls beyond this many a second (0: no limit)",
    )
    p.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="runs of each configuration, each on a fresh service; the report gives medians",
    )
    p.add_argument(
        "--image",
        choices=["photo", "jpeg", "synthetic"],
        default="photo",
        help="real photographs as PNG (benchmarks/support/photos.py), the same as JPEG, or a "
        "smooth synthetic gradient as PNG",
    )
    p.add_argument(
        "--images",
        type=int,
        default=None,
        help="distinct images taking turns, one per submission (default: every packaged "
        "photo; synthetic: 1, the same image)",
    )
    p.add_argument(
        "--one-at-a-time",
        type=int,
        default=16,
        help="after the load, this many submissions one after another (the service's CPU "
        "per submission without load; 0: none)",
    )
    p.add_argument(
        "--service-url",
        help="drive a service started elsewhere (with its own provider at --latency) instead "
        "of starting the fake provider and judge serve here",
    )
    p.add_argument(
        "--service-pid",
        type=int,
        help="with --service-url on this machine: the judge serve process, for its CPU",
    )
    p.add_argument("--out", help="also write the report JSON here")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the load benchmark and print its report; returns the exit code."""
    args = parser().parse_args(argv)
    tuned = {}
    for item in args.tuned:
        name, sep, value = item.partition("=")
        if not sep or not name.startswith("JUDGE_"):
            raise SystemExit(f"--tuned wants JUDGE_NAME=VALUE, got {item!r}")
        tuned[name] = value
    if args.repeats < 1:
        raise SystemExit(f"--repeats wants at least 1 run, got {args.repeats}")
    if args.images is not None and args.images < 1:
        raise SystemExit(f"--images wants at least 1 image, got {args.images}")
    if args.service_pid is not None and not args.service_url:
        raise SystemExit("--service-pid goes with --service-url (the service started elsewhere)")
    report = run(
        args.latency,
        args.clients,
        args.requests,
        [int(w) for w in args.workers.split(",")],
        args.checkpoints,
        args.batching,
        args.rate,
        args.model,
        tuned,
        args.rate_limit,
        args.repeats,
        args.images,
        args.image,
        args.one_at_a_time,
        args.service_url,
        args.service_pid,
    )
    print(render(report))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
