"""Memory pressure of image decoding in ``judge serve``: peak RSS of the server process while
it takes requests of many huge-but-compressible images. Not collected by pytest.

The case of issue 13: eight 6300x6300 RGBA PNGs per request (each under the default byte and
pixel limits), one request alone, then four at once. ``--unbounded`` lifts the per-request
pixel limit and the process budget (what the service did before they existed); the default
runs with the service's default limits. Peaks are the kernel's high-water mark of the server
(``VmHWM``, reset between cases through ``/proc/<pid>/clear_refs``).

Example::

    $ .venv/bin/python -m tests.api.memory_pressure               # default limits
    $ .venv/bin/python -m tests.api.memory_pressure --unbounded   # before the limits
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from PIL import Image

from tests.api.conftest import REPO, free_port
from tests.conftest import submission
from tests.fakes.provider import spawn_fake_provider, stop_process

COLORS = ["red", "green", "blue", "yellow", "white", "black", "gray", "orange"]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--images", type=int, default=8)
    p.add_argument("--side", type=int, default=6300)
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--unbounded", action="store_true", help="lift the new pixel limits")
    return p.parse_args(argv)


def huge_png(side: int, color: str) -> str:
    buf = io.BytesIO()
    Image.new("RGBA", (side, side), color).save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def rss_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for {pid}")


def reset_peak(pid: int) -> None:
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def run(args: argparse.Namespace, tmp: Path) -> list[dict]:
    provider, provider_url = spawn_fake_provider(latency=0.0)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env.update(
        JUDGE_DATA_DIR=str(tmp / "data"),
        JUDGE_MEMORY_DIR=str(tmp / "memories"),
        JUDGE_MODEL="openai/fake-judge",
        JUDGE_API_BASE=provider_url,
        JUDGE_API_KEY="x",
        JUDGE_SERVE_SCORE_TIMEOUT_S="1200",
        PYTHONPATH=str(REPO),
    )
    if args.unbounded:
        env.update(
            JUDGE_SERVE_MAX_REQUEST_PIXELS=str(10**12), JUDGE_SERVE_DECODE_BUDGET_PIXELS=str(10**12)
        )
    log = open(tmp / "serve.log", "w")  # noqa: SIM115
    server = subprocess.Popen(
        [sys.executable, "-m", "judge.cli.main", "serve", "--port", str(port)],
        env=env,
        cwd=tmp,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    rows = []
    try:
        with httpx.Client(base_url=base, timeout=1200) as c:
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                try:
                    if c.get("/readyz").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                time.sleep(0.3)
            sub = submission(n_images=1, prompt="a very large picture")
            sub["images"] = [huge_png(args.side, COLORS[i % 8]) for i in range(args.images)]
            c.post("/v1/score", json=submission(prompt="warm-up"))  # load lazily built parts
            for concurrency in (1, args.concurrency):
                base_mb = rss_mb(server.pid, "VmRSS")
                reset_peak(server.pid)
                with ThreadPoolExecutor(concurrency) as pool:
                    codes = list(
                        pool.map(
                            lambda _: c.post("/v1/score", json=sub).status_code, range(concurrency)
                        )
                    )
                rows.append(
                    {
                        "concurrent": concurrency,
                        "codes": codes,
                        "rss_before_mb": round(base_mb),
                        "peak_mb": round(rss_mb(server.pid, "VmHWM")),
                    }
                )
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
        stop_process(provider)
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memory-pressure-") as tmp:
        rows = run(args, Path(tmp))
    mode = "unbounded (before)" if args.unbounded else "default limits"
    print(f"{args.images} x {args.side}x{args.side} RGBA PNGs per request, {mode}")
    for row in rows:
        print(
            f"  {row['concurrent']} concurrent: HTTP {row['codes']}, RSS before "
            f"{row['rss_before_mb']} MB, peak {row['peak_mb']} MB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
