"""Limits on what annotators and admins can send: per-link and per-address request budgets
on the label routes, a cap on answers per link, one live link per annotator however often
(or concurrently) they are invited, revocation and closing that end links, tokens never in
the access log, image budgets at creation, source paths confined to the source folder, CSV
cells that cannot run as formulas, and no NaN/Infinity."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import logging
import os
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aredis
from PIL import Image

from api.core.logs import JsonLines
from eval.campaigns.cli import main
from eval.campaigns.exports import FORMULA_START, RATING_FIELDS, VOTE_FIELDS, to_csv
from eval.campaigns.sources import SourceError, campaign_items
from tests.api.conftest import LiveService, assert_error, live_service
from tests.campaigns.helpers import (
    COLOURS,
    data_url,
    invite,
    metadata_of,
    pairwise_body,
    png,
    rating_body,
    with_metadata,
)


def test_rate_limits_per_link_and_per_address(tmp_path: Path) -> None:
    env = {"JUDGE_SERVE_ADMIN_KEYS": "admin", "JUDGE_SERVE_LABEL_PER_TOKEN_PER_MINUTE": "5",
           "JUDGE_SERVE_LABEL_PER_ADDRESS_PER_MINUTE": "6"}  # fmt: skip
    with live_service(env, tmp_path) as svc, svc.client() as anon:
        with svc.client(headers={"Authorization": "Bearer admin"}) as admin:
            assert admin.post("/v1/campaigns", json=pairwise_body("rl-1")).status_code == 201
            one, two = invite(admin, "rl-1", 2)
        codes = [anon.get(f"/v1/label/{one['token']}/next").status_code for _ in range(6)]
        assert codes == [200] * 5 + [429]
        limited = anon.get(f"/v1/label/{one['token']}/next")
        assert "this link" in assert_error(limited, 429, "token")["message"]
        assert limited.headers["retry-after"]
        # the other link has its own budget, but the address's (6: the calls that passed the
        # link's check) is spent after one more
        assert anon.get(f"/v1/label/{two['token']}/next").status_code == 200
        refused = anon.get(f"/v1/label/{two['token']}/next")
        assert "this address" in assert_error(refused, 429, "token")["message"]


def test_answers_per_link_are_capped(admin: httpx.Client, anon: httpx.Client) -> None:
    body = pairwise_body("cap-1", n_items=1, validation="none", min_seconds=600, penalty_s=600)
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    token = invite(admin, "cap-1", 1)[0]["token"]
    task = anon.get(f"/v1/label/{token}/next").json()["task"]
    post = {"task": task["id"], "choice": "a"}
    cap = 2 * 1 + 20  # twice the campaign's tasks plus 20
    for _ in range(cap):  # too fast, then paused: each logged and refused
        assert anon.post(f"/v1/label/{token}/answers", json=post).json()["accepted"] is False
    over = anon.post(f"/v1/label/{token}/answers", json=post)
    assert "as many answers" in assert_error(over, 429, "token")["message"]
    assert len(admin.get("/v1/campaigns/cap-1/attempts").text.splitlines()) == cap


async def _invite_at_once(base: str, body: dict, n: int) -> list[dict]:
    headers = {"Authorization": "Bearer admin"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as c:
        got = await asyncio.gather(
            *(c.post("/v1/campaigns/inv-1/invitations", json=body) for _ in range(n))
        )
    assert {r.status_code for r in got} == {201}, [r.text for r in got]
    return [i for r in got for i in r.json()["invitations"]]


def test_one_live_link_per_annotator(
    service: LiveService, admin: httpx.Client, anon: httpx.Client
) -> None:
    assert admin.post("/v1/campaigns", json=pairwise_body("inv-1")).status_code == 201
    links = asyncio.run(_invite_at_once(service.base_url, {"names": ["maria"]}, 8))
    live = [x for x in links if anon.get(f"/v1/label/{x['token']}/next").status_code == 200]
    assert len(links) == 8 and len(live) == 1  # the last rotation wins; the others ended
    counted = asyncio.run(_invite_at_once(service.base_url, {"count": 2}, 5))
    names = [x["annotator"] for x in counted]
    assert len(set(names)) == 10 and "maria" not in names  # concurrent counts never collide
    assert sorted(admin.get("/v1/campaigns/inv-1").json()["annotators"]) == sorted(
        [*names, "maria"]
    )
    bad = admin.post("/v1/campaigns/inv-1/invitations", json={"names": ["x", "x"]})
    assert_error(bad, 400, "names")


def test_revoking_and_closing_end_the_links(
    service: LiveService, admin: httpx.Client, anon: httpx.Client,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("JUDGE_ADMIN_KEY", "admin")
    body = pairwise_body("end-1", n_items=2, votes_per_item=1, validation="none")
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    gone, kept, late = invite(admin, "end-1", 3)
    task = anon.get(f"/v1/label/{gone['token']}/next").json()["task"]
    assert main(["revoke", "end-1", "a01", "--url", service.base_url]) == 0
    assert "revoked a01" in capsys.readouterr().out
    ended = anon.get(f"/v1/label/{gone['token']}/next")
    assert ended.status_code in (404, 410)  # 410 where this process knew the link
    post = anon.post(f"/v1/label/{gone['token']}/answers", json={"task": task["id"], "choice": "a"})
    assert post.status_code in (404, 410)
    assert anon.get(f"/ui/label/{gone['token']}").status_code == 404
    assert admin.get("/v1/campaigns/end-1/reservations").json()["reservations"] == []
    assert admin.get("/v1/campaigns/end-1").json()["revoked"] == ["a01"]
    assert_error(
        admin.post("/v1/campaigns/end-1/invitations/revoke", json={"names": ["nobody"]}),
        400,
        "names",
    )
    assert main(["invite", "end-1", "--url", service.base_url, "--names", "a01"]) == 0
    header, line = capsys.readouterr().out.strip().splitlines()  # invited again: a new link
    assert header == "annotator,url,token" and line.startswith("a01,")
    assert anon.get(f"/v1/label/{line.rsplit(',', 1)[1]}/next").status_code == 200
    # closing: every link ends, its page thanks the annotator instead of "All done"
    pending = anon.get(f"/v1/label/{kept['token']}/next").json()["task"]
    assert admin.post("/v1/campaigns/end-1/status", json={"status": "closed"}).status_code == 200
    for who in (kept, late):
        assert_error(anon.get(f"/v1/label/{who['token']}/next"), 410, "token")
    closed = anon.post(
        f"/v1/label/{kept['token']}/answers", json={"task": pending["id"], "choice": "a"}
    )
    assert closed.json()["error"]["code"] == "closed"
    page = anon.get(f"/ui/label/{late['token']}")
    assert page.status_code == 200 and "This campaign has closed" in page.text  # a thank-you


def test_tokens_never_reach_the_access_log() -> None:
    token = "Q" * 32
    for path in (f"/v1/label/{token}/next", f"/ui/label/{token}?lang=de"):
        record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1,
                                   '%s - "%s %s HTTP/%s" %d',
                                   ("10.0.0.1:5", "GET", path, "1.1", 200), None)  # fmt: skip
        line = json.loads(JsonLines().format(record))
        assert token not in json.dumps(line) and "/label/tok:" in line["path"]


def test_campaign_images_are_held_to_the_pixel_and_byte_budgets(tmp_path: Path) -> None:
    env = {"JUDGE_SERVE_ADMIN_KEYS": "admin", "JUDGE_IMAGE_MAX_PIXELS": "1000000"}
    big = io.BytesIO()
    Image.new("RGB", (1200, 1000), "#345").save(big, "PNG")  # 1.2 Mpx: small file, over
    with (
        live_service(env, tmp_path) as svc,
        svc.client(headers={"Authorization": "Bearer admin"}) as admin,
    ):
        body = pairwise_body("big-1", n_items=3)
        body["items"][2]["b"]["image"] = data_url(big.getvalue())
        err = assert_error(admin.post("/v1/campaigns", json=body), 400, "items[2].b.image")
        assert "pixels" in err["message"]
        ok = pairwise_body("big-2", n_items=2)
        assert admin.post("/v1/campaigns", json=ok).status_code == 201


def test_non_finite_numbers_are_refused(admin: httpx.Client) -> None:
    for bad in ("NaN", "Infinity"):
        body = rating_body("nan-1", n_items=2)
        text = json.dumps(body).replace(
            '"model": "editor-0"', f'"model": "editor-0", "expected": [1, {bad}]', 1
        )
        got = admin.post("/v1/campaigns", content=text,
                         headers={"content-type": "application/json"})  # fmt: skip
        assert got.status_code == 400 and "items" in got.json()["error"]["field"], got.text
    body = rating_body("nan-2", n_items=2)
    body["items"][0]["expected"] = [4, 2]
    assert_error(admin.post("/v1/campaigns", json=body), 400, "(body)")


def test_the_source_folder_confines_image_paths(tmp_path: Path) -> None:
    run = tmp_path / "run"
    (run / "img").mkdir(parents=True)
    (run / "img" / "a.png").write_bytes(png("#111", 1))
    (tmp_path / "outside.png").write_bytes(png("#222", 2))
    os.symlink(tmp_path / "outside.png", run / "img" / "link.png")
    cases = {
        str(tmp_path / "outside.png"): "leaves the source folder",
        "../outside.png": "leaves the source folder",
        "img/link.png": "leaves the source folder",
        "/dev/zero": "leaves the source folder",
        "img": "not a regular file",
    }
    for image, reason in cases.items():
        lines = [{"prompt_id": "p", "model": "m1", "image": "img/a.png"},
                 {"prompt_id": "p", "model": "m2", "image": image}]  # fmt: skip
        (run / "manifest.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
        with pytest.raises(SourceError, match=reason):
            campaign_items(run, "pairwise")
    fifo = run / "img" / "pipe.png"
    os.mkfifo(fifo)
    lines[1]["image"] = "img/pipe.png"
    (run / "manifest.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(SourceError, match="not a regular file"):
        campaign_items(run, "pairwise")


def test_csv_cells_never_start_a_formula(admin: httpx.Client, anon: httpx.Client) -> None:
    starts = [*FORMULA_START, '=HYPERLINK("http://x")']
    row = {f: f"{starts[n % len(starts)]}x" for n, f in enumerate((*VOTE_FIELDS, *RATING_FIELDS))}
    _, values = list(csv.reader(io.StringIO(to_csv([row], list(row)))))
    assert values and all(cell.startswith("'") and cell[1:] == row[f]
                          for cell, f in zip(values, row, strict=True))  # fmt: skip
    # through the service: annotators' reasons and an admin's prompt
    body = rating_body("csv-1", n_items=1, min_seconds=0, validation="none", votes_per_item=7)
    body["items"][0]["model"] = "=cmd|' /C calc'!A0"
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    for inv, reason in zip(invite(admin, "csv-1", 7), starts, strict=True):
        task = anon.get(f"/v1/label/{inv['token']}/next").json()["task"]
        sent = {"task": task["id"], "rating": 3, "reason": reason + "1+1"}
        got = anon.post(f"/v1/label/{inv['token']}/answers", json=sent)
        assert got.json()["accepted"], got.text
    table = admin.get("/v1/campaigns/csv-1/ratings", params={"format": "csv"}).text
    rows = list(csv.DictReader(io.StringIO(table)))
    assert len(rows) == 7
    for r in rows:
        assert r["model"] == "'=cmd|' /C calc'!A0"
        assert r["reason"].startswith("'") or not r["reason"].startswith(FORMULA_START)
        assert not any(v.startswith(FORMULA_START) for v in r.values() if v)


def test_links_ended_by_another_worker_end_every_route(
    service: LiveService, admin: httpx.Client, anon: httpx.Client
) -> None:
    """This process has seen the links live (it remembers their owners); another worker —
    a second CampaignStore on the same Redis — revokes one and closes the campaign. The
    profile route and the old-style image route ask Redis, not the memory: the revoked
    link is refused there too, and a profile after the close is refused (410 closed)."""
    from api.campaigns.store import CampaignStore

    body = pairwise_body("end-2", n_items=3, votes_per_item=2, validation="none",
                         demographics=True)  # fmt: skip
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    gone, kept = invite(admin, "end-2", 2)
    shown = anon.get(f"/v1/label/{gone['token']}/next").json()["task"]["images"]
    key = shown["a"].rsplit("/", 1)[-1]
    old_style = f"/v1/label/{gone['token']}/images/{key}"
    assert anon.get(old_style).status_code == 200
    assert anon.post(f"/v1/label/{kept['token']}/profile", json={}).status_code == 204

    async def other_worker(step: str) -> None:
        redis = aredis.Redis.from_url(service.redis_url)
        store = CampaignStore(redis)
        if step == "revoke":
            assert await store.revoke("end-2", ["a01"]) == ["a01"]
        else:
            await store.set_status("end-2", "closed")
        await redis.aclose()

    asyncio.run(other_worker("revoke"))
    assert anon.get(old_style).status_code == 404
    assert anon.post(f"/v1/label/{gone['token']}/profile", json={}).status_code == 404
    asyncio.run(other_worker("close"))
    late = anon.post(f"/v1/label/{kept['token']}/profile", json={"age_band": "25-34"})
    assert_error(late, 410, "token")
    assert late.json()["error"]["code"] == "closed"


def test_campaign_images_are_served_only_under_their_own_path(
    admin: httpx.Client, anon: httpx.Client
) -> None:
    body = pairwise_body("path-1", n_items=1, validation="none")
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    (link,) = invite(admin, "path-1", 1)
    url = anon.get(f"/v1/label/{link['token']}/next").json()["task"]["images"]["a"]
    assert anon.get(url).status_code == 200
    for prefix in ("/anything", "/v2", "/ui"):
        other = anon.get(url.replace("/v1", prefix, 1))
        assert other.status_code == 404 and other.headers["content-type"].startswith(
            "application/json"
        ), prefix


def test_a_campaign_created_again_after_a_redis_loss_is_served_anew(
    service: LiveService, admin: httpx.Client, anon: httpx.Client
) -> None:
    """This process remembers the campaign's record; Redis loses the campaign and another
    worker creates it again under the same id with other items and invites someone: their
    ``next`` serves the new items (it answered 500, KeyError, from the old record)."""
    from api.campaigns.store import CampaignStore
    from eval.campaigns.ingest import ingest
    from eval.campaigns.models import CampaignCreate
    from judge.config import JudgeSettings

    first = pairwise_body("again-1", n_items=2, votes_per_item=1, validation="none")
    assert admin.post("/v1/campaigns", json=first).status_code == 201
    (link,) = invite(admin, "again-1", 1)
    assert anon.get(f"/v1/label/{link['token']}/next").status_code == 200
    second = pairwise_body("again-1", n_items=3, votes_per_item=1, validation="none",
                           min_seconds=0.0)  # fmt: skip
    for item in second["items"]:
        item["id"] = item["id"].replace("p", "q")
    record, images = ingest(CampaignCreate.model_validate(second), JudgeSettings())

    async def lose_and_create_again() -> None:
        redis = aredis.Redis.from_url(service.redis_url)
        lost = [k async for k in redis.scan_iter("judge:campaign*")]
        await redis.delete(*lost)
        other = CampaignStore(redis)
        assert await other.create(record, images)
        assert await other.invite("again-1", {"b01": "N" * 32}) == []
        await redis.aclose()

    asyncio.run(lose_and_create_again())
    for _ in range(3):  # every item of the new campaign, none of the old
        got = anon.get(f"/v1/label/{'N' * 32}/next")
        assert got.status_code == 200, got.text
        task = got.json()["task"]
        images_shown = set(task["images"].values())
        assert all(anon.get(u).status_code == 200 for u in images_shown)
        done = anon.post(f"/v1/label/{'N' * 32}/answers", json={"task": task["id"], "choice": "a"})
        assert done.status_code == 200 and done.json()["accepted"], done.text
    assert anon.get(f"/v1/label/{'N' * 32}/next").status_code == 204
    status = admin.get("/v1/campaigns/again-1").json()
    assert status["n_items"] == 3 and status["labels"] == 3


def test_stored_images_carry_no_metadata(admin: httpx.Client, anon: httpx.Client) -> None:
    """Items sent as PNG and JPEG with a comment, text chunks, EXIF, XMP and a resolution:
    every image a link is shown — the items' and the validation spoilers' alike — has none
    of it, and all share one JFIF header (no resolution tells a spoiler)."""
    body = pairwise_body("meta-1", n_items=8, votes_per_item=1, validation_every=2,
                         min_seconds=0.0)  # fmt: skip
    for n, item in enumerate(body["items"]):
        for side in ("a", "b"):
            raw = png(COLOURS[(n + (side == "b")) % 8], n + (side == "b"))
            fmt = "PNG" if (n + (side == "b")) % 2 else "JPEG"
            mime = "image/png" if fmt == "PNG" else "image/jpeg"
            item[side]["image"] = data_url(with_metadata(raw, fmt)).replace("image/png", mime)
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    (link,) = invite(admin, "meta-1", 1)
    seen, headers, validation = set(), set(), 0
    while (got := anon.get(f"/v1/label/{link['token']}/next")).status_code == 200:
        task = got.json()["task"]
        for url in task["images"].values():
            raw = anon.get(url).content
            assert metadata_of(raw) == {}, url
            info = Image.open(io.BytesIO(raw)).info
            headers.add((info["jfif_version"], info["jfif_unit"], info["jfif_density"]))
            seen.add(url)
        answer = anon.post(f"/v1/label/{link['token']}/answers",
                           json={"task": task["id"], "choice": "a"})  # fmt: skip
        assert answer.json()["accepted"]
    attempts = admin.get("/v1/campaigns/meta-1/attempts").text.splitlines()
    validation = sum(json.loads(a)["validation"] for a in attempts)
    assert len(seen) > 16 and validation >= 2 and len(headers) == 1
