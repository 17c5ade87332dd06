"""Soak run of the batch pipeline: 1,000 submissions, 20 % provider faults, one worker killed.

Everything is a real process on loopback: redis-server, the fake provider, ``judge serve`` and
``judge worker`` x N. The batch is uploaded as a JSONL file; when half of it is finished one
worker gets SIGKILL (no replacement unless ``--replace``). The run then checks that every item
has exactly one result line, in input order, and prints the counts. Not collected by pytest.

Example::

    $ .venv/bin/python -m tests.api.soak_batch                 # the target scenario
    $ .venv/bin/python -m tests.api.soak_batch --items 200 --workers 2 --replace
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from api.jobs.store import BatchKeys
from tests.api.test_batches import Stack, make_items


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--items", type=int, default=1000)
    p.add_argument("--workers", type=int, default=3)
    p.add_argument("--concurrency", type=int, default=16, help="items per worker at once")
    p.add_argument("--latency", type=float, default=0.2, help="fake provider seconds per call")
    p.add_argument("--fault-rate", type=float, default=0.2)
    p.add_argument("--lease", type=float, default=10.0, help="JUDGE_WORKER_LEASE_S")
    p.add_argument("--kill-at", type=float, default=0.5, help="fraction finished at the kill")
    p.add_argument("--replace", action="store_true", help="start a replacement worker")
    p.add_argument("--timeout", type=float, default=900.0)
    return p.parse_args(argv)


def run(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """The scenario; returns the measurements."""
    stack = Stack(
        tmp,
        latency=args.latency,
        fault_rate=args.fault_rate,
        env={
            "JUDGE_SERVE_MAX_BATCH_ITEMS": str(max(args.items, 1)),
            "JUDGE_WORKER_CONCURRENCY": str(args.concurrency),
            "JUDGE_WORKER_LEASE_S": str(args.lease),
        },
    )
    try:
        stack.start_api()
        workers = [stack.start_worker(wait=False) for _ in range(args.workers)]
        for w in workers:
            while "Starting worker" not in w.log_path.read_text(errors="replace"):  # type: ignore[attr-defined]
                time.sleep(0.1)
        items = make_items(args.items, tag="soak", n_checks=2)
        for i in range(0, len(items), 2):
            items[i]["task"]["checklist"] = items[i]["task"]["checklist"][:1]  # 1-2 checkpoints
        jsonl = "".join(json.dumps(item) + "\n" for item in items).encode()
        start = time.monotonic()
        batch_id = stack.submit(
            None, files={"file": ("batch.jsonl", jsonl, "application/x-ndjson")}
        )
        submitted = time.monotonic() - start
        keys = BatchKeys.of(batch_id)
        killed = {"at_finished": None, "in_flight": 0, "seconds": None}
        deadline = start + args.timeout
        while True:
            info = stack.client.get(f"/v1/batches/{batch_id}").json()
            finished = info["done"] + info["failed"]
            if killed["at_finished"] is None and finished >= args.kill_at * args.items:
                victim = workers[0]
                killed["in_flight"] = sum(
                    1 for _ in stack.r.scan_iter(f"arq:in-progress:{batch_id}:*")
                )
                victim.send_signal(signal.SIGKILL)
                victim.wait(10)
                killed.update(at_finished=finished, seconds=round(time.monotonic() - start, 2))
                if args.replace:
                    stack.start_worker(wait=False)
            if info["status"] == "done" or time.monotonic() > deadline:
                break
            time.sleep(0.25)
        wall = time.monotonic() - start
        resp = stack.client.get(f"/v1/batches/{batch_id}/results")
        lines = [json.loads(line) for line in resp.text.splitlines()]
        indices = [line["index"] for line in lines]
        unique = set(indices)
        admin = stack.provider_url.rsplit("/v1", 1)[0] + "/_admin/stats"
        provider = httpx.get(admin, timeout=10).json()
        meta = {k.decode(): v.decode() for k, v in stack.r.hgetall(keys.meta).items()}
        return {
            "items": args.items,
            "workers": args.workers,
            "status": info["status"],
            "result_lines": len(lines),
            "with_result": sum("result" in line for line in lines),
            "with_error": sum("error" in line for line in lines),
            "duplicated_lines": len(indices) - len(unique),
            "lost": args.items - len(unique),
            "in_input_order": indices == sorted(indices),
            "results_hash_len": stack.r.hlen(keys.results),
            "failures_hash_len": stack.r.hlen(keys.failures),
            "status_done": info["done"],
            "status_failed": info["failed"],
            "item_executions": int(meta.get("attempts", 0)),
            "late_duplicates_ignored": int(meta.get("duplicates", 0)),
            "killed_worker": killed,
            "provider_calls": provider["calls"],
            "provider_faults": provider["fault_counts"],
            "submit_seconds": round(submitted, 2),
            "wall_seconds": round(wall, 1),
        }
    finally:
        stack.close()


def main(argv: list[str] | None = None) -> int:
    """Run the soak and print its counts; exit 0 when nothing was lost or duplicated."""
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="judge-soak-") as tmp:
        report = run(args, Path(tmp))
    print(json.dumps(report, indent=2))
    ok = (
        report["status"] == "done"
        and report["lost"] == 0
        and report["duplicated_lines"] == 0
        and report["results_hash_len"] + report["failures_hash_len"] == args.items
    )
    print(
        f"{'OK' if ok else 'FAILED'}: {report['result_lines']} result lines for "
        f"{args.items} items, {report['lost']} lost, {report['duplicated_lines']} duplicated, "
        f"{report['with_error']} failed items, {report['wall_seconds']} s"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
