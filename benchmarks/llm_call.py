"""CPU per model call through litellm, against the fake provider on loopback (latency 0).

Each call is one :meth:`judge.llm.gateway.LLMGateway._send` (the gateway's provider round
trip plus usage accounting), timed with ``time.process_time`` in
this process (the provider runs in its own process). Two kinds of request: text only, and a
text part with two ~1 MP images sent as data URLs (encoded the way the judge sends images).
Setting sets are interleaved in small blocks, so the machine's load hits them alike:
``litellm-defaults`` (litellm's own values of the settings the judge changes) and ``judge``
(:data:`judge.llm.litellm_settings.TUNED`); ``--set NAME=VALUE`` adds a third set, the
judge's plus those values, for trying a setting before adopting it; ``--route MODEL`` adds a
row with the judge's settings through another litellm route to the same OpenAI-compatible
server (e.g. ``hosted_vllm/fake-judge``, ``custom_openai/fake-judge``). Every row goes
through ``litellm.acompletion`` (``llm_transport="litellm"``) except ``direct route``: the
judge's default for an OpenAI-compatible endpoint (:mod:`judge.llm.direct`), litellm's request
sent by the judge's own client.

Example:
    $ python -m benchmarks.llm_call --calls 200
    $ python -m benchmarks.llm_call --calls 50 --set disable_aiohttp_transport=true
    $ python -m benchmarks.llm_call --calls 50 --route hosted_vllm/fake-judge
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import json
import statistics
import sys
import time
from typing import Any

from PIL import Image
from tqdm import tqdm

from judge.config import JudgeSettings
from judge.llm import litellm_settings
from judge.llm.gateway import LLMGateway
from judge.llm.usage import UsageMeter
from tests.fakes.provider import spawn_fake_provider, stop_process

MODEL = "openai/fake-judge"
BLOCK = 10  # calls per setting set before switching to the next
DIRECT = "direct route"  # the row of the judge's direct route (judge.llm.direct)


def _image_url(seed: int) -> str:
    """A ~1 MP generated-looking image as the judge would send it (downscaled, JPEG)."""
    from benchmarks.score import bench_submission
    from judge.io.images import to_payload

    url = bench_submission(1, side=1000 + seed)["images"][0]
    url = url if isinstance(url, str) else next(v for v in url.values() if "base64," in str(v))
    raw = base64.b64decode(url.split(",", 1)[1])
    return to_payload(Image.open(io.BytesIO(raw)).convert("RGB"), 1536).data_url


def messages(kind: str) -> list[dict]:
    """The request of one kind: ``text`` or ``images`` (text plus two data-URL images)."""
    system = {"role": "system", "content": "You judge images against a checklist. " * 20}
    text = "Does the image show exactly three red lanterns? Answer in JSON. " * 10
    if kind == "text":
        return [system, {"role": "user", "content": text}]
    parts = [{"type": "text", "text": text}]
    parts += [{"type": "image_url", "image_url": {"url": _image_url(k)}} for k in (0, 1)]
    return [system, {"role": "user", "content": parts}]


def parse_set(items: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs; values are JSON (``true``, ``3``) or else plain strings."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise SystemExit(f"--set wants NAME=VALUE, got {item!r} (e.g. --set logging=false)")
        try:
            out[name] = json.loads(raw)
        except json.JSONDecodeError:
            out[name] = raw
    return out


async def _measure(
    base_url: str,
    kinds: dict[str, list[dict]],
    sets: dict[str, dict],
    calls: int,
    routes: dict[str, str] | None = None,
) -> dict[str, dict[str, list[float]]]:
    base = JudgeSettings(model=MODEL, api_base=base_url, api_key="x", cache=False)
    gw = LLMGateway(base)
    per_set = {  # every row through litellm but the direct route's
        name: base.merged(llm_transport="auto" if name == DIRECT else "litellm") for name in sets
    }
    fmt = {"type": "json_schema", "json_schema": {"name": "Answer", "schema": {"type": "object"}}}
    meter = UsageMeter()
    routes = routes or {}
    times = {name: {kind: [] for kind in kinds} for name in sets}
    for name, values in sets.items():  # warm each set once, untimed
        with litellm_settings.applied(values):
            for msgs in kinds.values():
                for model in {MODEL, *routes.values()}:
                    await gw._send(model, msgs, fmt, meter, per_set[name])
    rounds = -(-calls // BLOCK)
    for _ in tqdm(range(rounds), desc="per-call bench", file=sys.stderr, leave=False):
        for name, values in sets.items():
            with litellm_settings.applied(values):
                for kind, msgs in kinds.items():
                    for _ in range(BLOCK):
                        t0 = time.process_time()
                        await gw._send(routes.get(name, MODEL), msgs, fmt, meter, per_set[name])
                        times[name][kind].append(time.process_time() - t0)
    return times


def run(calls: int, extra: dict[str, Any], routes: list[str] | None = None) -> dict:
    """Median CPU ms per call for each setting set (and extra route) and request kind."""
    sets = {
        "litellm-defaults": {**litellm_settings.TUNED, **litellm_settings.DEFAULTS},
        "judge": dict(litellm_settings.TUNED),
    }
    if extra:
        sets["judge+set"] = {**litellm_settings.TUNED, **extra}
    sets[DIRECT] = dict(litellm_settings.TUNED)
    by_route = {f"judge {r.split('/')[0]}/": r for r in routes or []}
    sets.update({name: dict(litellm_settings.TUNED) for name in by_route})
    kinds = {"text": messages("text"), "images": messages("images")}
    proc, base_url = spawn_fake_provider(latency=0.0)
    try:
        times = asyncio.run(_measure(base_url, kinds, sets, calls, by_route))
    finally:
        stop_process(proc)
        litellm_settings.apply()
    return {
        "calls": calls,
        "cpu_ms_median": {
            name: {kind: round(1000 * statistics.median(ts), 2) for kind, ts in by.items()}
            for name, by in times.items()
        },
        "sets": {name: values for name, values in sets.items()},
        "routes": {name: by_route.get(name, MODEL) for name in sets},
    }


def render(report: dict) -> str:
    """A small table: one row per setting set."""
    lines = [f"CPU ms per call, median of {report['calls']} calls (fake provider, latency 0)"]
    width = max(18, *(len(name) + 2 for name in report["cpu_ms_median"]))
    lines.append(f"{'settings':<{width}}{'text':>8}{'2 images':>10}")
    for name, by in report["cpu_ms_median"].items():
        lines.append(f"{name:<{width}}{by['text']:>8.2f}{by['images']:>10.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; see the module docstring."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.llm_call", description=__doc__)
    p.add_argument("--calls", type=int, default=200, help="timed calls per set and kind")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="also time the judge's settings plus this litellm setting")  # fmt: skip
    p.add_argument("--route", action="append", default=[], metavar="MODEL",
                   help="also time the judge's settings through this litellm route")  # fmt: skip
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    args = p.parse_args(argv)
    if args.calls < 1:
        p.error("--calls must be at least 1")
    report = run(args.calls, parse_set(args.set), args.route)
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
