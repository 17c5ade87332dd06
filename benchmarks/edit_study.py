"""``python -m benchmarks.edit_study [--latency L]``: an edit study's throughput and judge calls
per edit against the fake provider.

The study: ``--tasks`` edit tasks (default 12, over four edit families) × 1 writer (as
written) × ``--editors`` editors (default 2), each the fake provider's ``/v1/images/edits``
reached through litellm, ``--edits`` edits per instruction (default 2), judged in edit mode by
the fake judge; the editors and the judge are served by one fake provider in its own process
answering after ``L`` seconds. Prints the wall time (and as a multiple of L), edits per second
(edited images and edit requests), judge calls per judged edit set and per edited image, and the
runner's and the fake's CPU seconds.

Example:
    $ python -m benchmarks.edit_study --latency 0.5
    $ python -m benchmarks.edit_study --latency 0.2 --tasks 4 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

FAMILIES = (
    ("colour_change", "Make the box blue."),
    ("remove_object", "Remove the box."),
    ("lighting_change", "Make the picture darker."),
    ("text_change", 'Write "SALE" on the box.'),
)


def parser() -> argparse.ArgumentParser:
    """The benchmark's options."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.edit_study",
        description="time an edit study against the fake provider",
    )
    p.add_argument("--latency", type=float, default=1.0, metavar="L",
                   help="seconds every fake call takes (default 1)")  # fmt: skip
    p.add_argument("--tasks", type=int, default=12, help="edit tasks (default 12)")
    p.add_argument("--editors", type=int, default=2, help="fake editors (default 2)")
    p.add_argument("--edits", type=int, default=2, help="edits per instruction (default 2)")
    p.add_argument("--size", default="256x256", help="source picture size (default 256x256)")
    p.add_argument("--compare", action="store_true",
                   help="compare = true: the judge also compares the editors' edits")  # fmt: skip
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    return p


def write_tasks(folder: Path, n_tasks: int, size: str) -> None:
    """``n_tasks`` edit tasks over the four families, each on a picture of its own."""
    w, _, h = size.partition("x")
    rows = []
    for i in range(n_tasks):
        family, instruction = FAMILIES[i % len(FAMILIES)]
        img = Image.new("RGB", (int(w), int(h)), (220, 215, 205))
        ImageDraw.Draw(img).rectangle((int(w) // 4, int(h) // 4, int(w) // 2 + i % 8, int(h) // 2),
                                      fill=(30 * (i % 8), 90, 160))  # fmt: skip
        img.save(folder / f"src{i}.png")
        rows.append({"id": f"t{i}", "instruction": instruction, "source_image": f"src{i}.png",
                     "category": "objects", "edit_type": family})  # fmt: skip
    (folder / "edits.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def write_study(
    folder: Path, base_url: str, editors: int, edits: int, compare: bool = False,
    size: str = "256x256",
) -> Path:  # fmt: skip
    """The bench study file: as-written instructions, fake editors, the fake judge. With
    ``compare``, editor k > 0 asks for its edits 16·k pixels smaller (the fake editors apply
    the same transformation, and two identical edits are a tie the judge is not asked)."""
    w, _, h = size.partition("x")
    parts = ['[study]\nkind = "edit"\nname = "bench"\ntasks = "edits.jsonl"\n'
             f"edits_per_instruction = {edits}\ncompare = {str(compare).lower()}\n",
             '[[writers]]\nid = "as-written"\nkind = "as_written"\n']  # fmt: skip
    for k in range(editors):
        smaller = f'size = "{int(w) - 16 * k}x{int(h) - 16 * k}"\n' if compare and k else ""
        parts.append(f'[[editors]]\nid = "fake-{k}"\nmodel = "openai/fake-editor-{k}"\n'
                     f'api_base = "{base_url}"\n{smaller}')  # fmt: skip
    parts.append(f'[judge]\nmodel = "openai/fake-judge"\napi_base = "{base_url}"\n'
                 'options = {retrieval = "none"}\n')  # fmt: skip
    path = folder / "study.toml"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def bench(
    latency: float, n_tasks: int, editors: int, edits: int, size: str, compare: bool = False
) -> dict[str, Any]:
    """Run the bench edit study once; its figures (set-up excluded from the wall time)."""
    import os

    os.environ.setdefault("OPENAI_API_KEY", "fake-key")
    from eval.kit.client import LocalJudge
    from eval.studies.config import cfg_settings
    from eval.studies.edits.config import load_edit_study
    from eval.studies.edits.runner import EditStudyRunner
    from eval.studies.edits.tasks import load_edit_tasks
    from eval.studies.runner import RunOptions
    from tests.fakes.provider import spawn_fake_provider, stop_process

    proc, base_url = spawn_fake_provider(latency=latency)
    try:
        with tempfile.TemporaryDirectory(prefix="edit-study-bench-") as tmp:
            folder = Path(tmp)
            write_tasks(folder, n_tasks, size)
            cfg = load_edit_study(write_study(folder, base_url, editors, edits, compare, size))
            call = LocalJudge(cfg_settings(cfg, api_key="fake-key"), options=cfg.judge.options)  # type: ignore[arg-type]
            call.judge.wait_warm(timeout_s=120)
            runner = EditStudyRunner(cfg, RunOptions(out=folder / "out", progress=False),
                                     load_edit_tasks(cfg.tasks_path), call)  # fmt: skip
            cpu, start = time.process_time(), time.perf_counter()
            summary = asyncio.run(runner.run())
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            made = folder / "out" / "comparisons.jsonl"
            rows = [json.loads(x) for x in made.read_text().splitlines()] if compare else []
    finally:
        stop_process(proc)
    fake = resource.getrusage(resource.RUSAGE_CHILDREN)
    u = summary.usage
    compare_calls = sum(r["usage"].get("calls", 0) for r in rows)
    asked = sum(r["status"] != "identical" for r in rows)  # identical edits: nothing asked
    judged = (u["judge"]["steps"] - asked) or 1  # the judge stage counts comparisons too
    item_calls = u["judge"]["calls"] - compare_calls
    images = u["edit"]["steps"] * edits
    return {
        "latency_s": latency, "tasks": n_tasks, "editors": editors, "edits": edits, "size": size,
        "items": summary.total, "statuses": summary.counts,
        "wall_s": round(wall, 2), "wall_over_latency": round(wall / latency, 2),
        "edited_images_per_s": round(images / wall, 2),
        "edit_requests_per_s": round(u["edit"]["calls"] / wall, 2),
        "judge_calls_per_edit_set": round(item_calls / judged, 2),
        "judge_calls_per_edited_image": round(item_calls / judged / edits, 2),
        "comparisons": len(rows),
        "judge_calls_per_comparison": round(compare_calls / len(rows), 2) if rows else None,
        "cpu_s": round(cpu, 2), "fake_provider_cpu_s": round(fake.ru_utime + fake.ru_stime, 2),
        "usage": u,
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures; returns the exit code."""
    args = parser().parse_args(argv)
    if args.latency <= 0 or args.tasks < 1 or args.editors < 1 or not 1 <= args.edits <= 8:
        print("benchmarks.edit_study: --latency > 0, --tasks and --editors >= 1, --edits 1..8",
              file=sys.stderr)  # fmt: skip
        return 2
    out = bench(args.latency, args.tasks, args.editors, args.edits, args.size, args.compare)
    if args.json:
        print(json.dumps(out))
        return 0
    o = out
    print(f"{o['items']} edit items {o['statuses']} at L = {o['latency_s']} s: wall "
          f"{o['wall_s']} s = {o['wall_over_latency']} L; {o['edited_images_per_s']} edited "
          f"images/s ({o['edit_requests_per_s']} edit requests/s); judge calls "
          f"{o['judge_calls_per_edit_set']} per edit set, {o['judge_calls_per_edited_image']} "
          f"per edited image; {o['comparisons']} comparisons, "
          f"{o['judge_calls_per_comparison']} judge calls each; CPU {o['cpu_s']} s "
          f"(fake provider {o['fake_provider_cpu_s']} s)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
