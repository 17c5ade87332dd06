"""Probe and study records whose stored and served bytes are pinned in
``tests/api/data/records/`` (captured from the code before the records were typed, by running
this file: ``PYTHONPATH=<checkout> python tests/api/record_cases.py tests/api/data/records``;
``tests/api/test_record_bytes.py`` checks the code still writes and serves them).

Everything goes through a live service on loopback and its real Redis: a study is registered,
read, answered and exported over HTTP; probes are stored with :class:`ProbeStore` in the
service's Redis (their runs need a T2I backend, which is not what is pinned) and read,
listed and cancelled over HTTP. The clock and the probe ids are fixed while a case runs, so
the bytes hold on any machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import redis.asyncio as aredis

from tests.api.conftest import LiveService, live_service
from tests.api.study_helpers import study_body

ADMIN, READER = "admin-key-for-pins", "reader-key-for-pins"
ENV = {"JUDGE_SERVE_API_KEYS": READER, "JUDGE_SERVE_ADMIN_KEYS": ADMIN}
WHEN = 1_765_000_000.25
STAMPS = ("2026-12-07T01:02:03.000004Z", "2026-12-07T01:02:04.500000Z")


@contextlib.contextmanager
def fixed_time() -> Iterator[None]:
    """Study time stamps from :data:`STAMPS` in turn, probe times from :data:`WHEN` on (one
    second apart), probe ids ``000…001``, ``000…002``…"""
    from api.probes import store as probe_store
    from api.studies import routes as study_routes
    from api.studies import store as study_store

    stamps = itertools.cycle(STAMPS)
    seconds = itertools.count()
    ids = itertools.count(1)
    saved = (study_routes.now_iso, study_store.now_iso, probe_store.time, probe_store.uuid)
    study_routes.now_iso = study_store.now_iso = lambda: next(stamps)  # type: ignore[assignment]
    probe_store.time = types.SimpleNamespace(time=lambda: WHEN + next(seconds))  # type: ignore[assignment]
    probe_store.uuid = types.SimpleNamespace(  # type: ignore[assignment]
        uuid4=lambda: types.SimpleNamespace(hex=f"{next(ids):032x}")
    )
    try:
        yield
    finally:
        study_routes.now_iso, study_store.now_iso, probe_store.time, probe_store.uuid = saved  # type: ignore[assignment]


def study_bodies() -> dict[str, dict[str, Any]]:
    """A prompt study (given codes, text outside ASCII, instructions) and an edit study."""
    prompt = study_body(2, id="pin-prompt", participants=["K7QM-3XPD-W9RT", "B4NZ-8HJC-2VLF"],
                        name="Hafen-Studie ✓", instructions="Schreib <b>kurz</b>.",
                        max_prompt_chars=300)  # fmt: skip
    edit = study_body(0, id="pin-edit", participants=["T6RW-9KDM-4QXP"], kind="edit")
    return {"pin-prompt": prompt, "pin-edit": edit}


PROBES: dict[str, dict[str, Any]] = {
    "pin-probe-plain": {
        "params": {"topic": "kitchens", "backend": "flux", "depth": 1},
        "backend": "flux",
        "plan": None,
    },
    "pin-probe-planned": {
        "params": {"topic": "Küchen — 台所", "backend": "flux", "inputs": 3, "bug_threshold": 0.5},
        "backend": "flux",
        "plan": {"plan": {"nodes": 3, "images": 9.0}, "limits": {"images": 10.0, "usd": 1.5}},
    },
}


def _study_case(svc: LiveService, body: dict[str, Any]) -> dict[str, Any]:
    sid = body["id"]
    admin = svc.client(headers={"Authorization": f"Bearer {ADMIN}"})
    anon = svc.client()
    out: dict[str, Any] = {"created": admin.post("/v1/studies", json=body).text}
    code = body["participants"][0]
    tasks = [json.loads(t)["id"] if isinstance(t, str) else t["id"] for t in body["tasks"]]
    answers = []
    for n, task in enumerate([tasks[0], tasks[0], tasks[-1]]):
        text = f"ein Hafen {n} — 港" if body.get("kind") != "edit" else f"make it bluer {n}"
        sent = {"participant": code, "task_id": task, "prompt": text}
        answers.append(anon.post(f"/v1/studies/{sid}/prompts", json=sent).text)
    out["answers"] = answers
    out["info"] = admin.get(f"/v1/studies/{sid}").text
    out["export"] = admin.get(f"/v1/studies/{sid}/prompts").text
    out["history"] = admin.get(f"/v1/studies/{sid}/prompts", params={"history": "true"}).text

    async def stored() -> str:
        client = aredis.Redis.from_url(svc.redis_url)
        try:
            got = await client.get(f"judge:study:{sid}:meta")
            assert got is not None, (svc.redis_url, await client.keys("*"))
            return got.decode()
        finally:
            await client.aclose()

    assert '"page"' in out["created"], out["created"]
    out["meta"] = asyncio.run(stored())
    return out


def _probe_case(svc: LiveService, case: dict[str, Any]) -> dict[str, Any]:
    from api.jobs.store import owner_tag
    from api.probes.store import ProbeStore

    async def create() -> tuple[str, dict[str, str]]:
        client = aredis.Redis.from_url(svc.redis_url)
        try:
            store = ProbeStore(client, 3600)
            pid = await store.create(case["params"], case["backend"], owner_tag(READER),
                                     plan=case["plan"])  # fmt: skip
            assert pid is not None
            await store.save_spent(pid, {"images": 2.0, "usd": 0.125})
            raw = await client.hgetall(store.key(pid, "meta"))
            return pid, {k.decode(): v.decode() for k, v in raw.items()}
        finally:
            await client.aclose()

    pid, meta = asyncio.run(create())
    reader = svc.client(headers={"Authorization": f"Bearer {READER}"})
    out: dict[str, Any] = {"id": pid, "meta": meta, "running": reader.get(f"/v1/probes/{pid}").text}
    out["cancelled"] = reader.delete(f"/v1/probes/{pid}").text
    out["after"] = reader.get(f"/v1/probes/{pid}").text

    async def ended() -> dict[str, str]:
        client = aredis.Redis.from_url(svc.redis_url)
        try:
            raw = await client.hgetall(f"judge:probe:{pid}:meta")
            return {k.decode(): v.decode() for k, v in raw.items()}
        finally:
            await client.aclose()

    out["meta_after"] = ended_meta = asyncio.run(ended())
    assert ended_meta["status"] == "cancelled"
    return out


def run_cases(data_dir: Path) -> dict[str, dict[str, Any]]:
    """Every case, as the code under test stores and serves it."""
    out: dict[str, dict[str, Any]] = {}
    with fixed_time(), live_service(ENV, data_dir, wait_warm=False) as svc:
        for sid, body in study_bodies().items():
            out[sid] = _study_case(svc, body)
        for name, case in PROBES.items():
            out[name] = _probe_case(svc, case)
        reader = svc.client(headers={"Authorization": f"Bearer {READER}"})
        out["pin-probe-listing"] = {"listing": reader.get("/v1/probes").text}
    return out


def capture(target: Path, data_dir: Path) -> None:
    """Write each case's bytes to ``target/<case>.json`` (run on the code to pin)."""
    target.mkdir(parents=True, exist_ok=True)
    for name, case in run_cases(data_dir).items():
        (target / f"{name}.json").write_text(
            json.dumps(case, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        capture(Path(sys.argv[1]), Path(tmp))
