"""Campaign routes through the live service: admin-only creation and exports, bad input
answered with a 4xx naming the field (never a 500), invitation tokens as the only annotator
credential (scoped, throttled), the time floor and its penalty, append-only records, and
exports that `judge leaderboard` and the votes / edit-ratings datasets read."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from eval.datasets.edit_ratings import EditRatingsDataset
from eval.leaderboards.votes import read_votes
from tests.api.conftest import LiveService, assert_error, live_service
from tests.campaigns.helpers import (
    answer_all,
    data_url,
    invite,
    pairwise_body,
    png,
    ranking_body,
    rating_body,
)


def test_admin_only_and_unknown_ids(service: LiveService, admin: httpx.Client) -> None:
    body = pairwise_body("auth-1")
    with service.client() as anon:
        assert_error(anon.post("/v1/campaigns", json=body), 401, "Authorization")
    with service.client(headers={"Authorization": "Bearer reader"}) as reader:
        assert_error(reader.post("/v1/campaigns", json=body), 403, "Authorization")
    for path in ("", "/votes", "/report", "/attempts", "/ratings", "/images/" + "0" * 24):
        assert_error(admin.get(f"/v1/campaigns/nope{path}"), 404, "id")
    assert_error(admin.post("/v1/campaigns/nope/invitations", json={"count": 2}), 404, "id")
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    assert_error(admin.post("/v1/campaigns", json=body), 409, "id")
    assert_error(admin.get("/v1/campaigns/auth-1/images/" + "0" * 24), 404, "image")


def test_bad_bodies_name_the_field(admin: httpx.Client) -> None:
    cases = [
        ({"criterion": "no_such_card"}, 400, "criterion"),
        ({"kind": "sorting"}, 400, "kind"),
        ({"votes_per_item": "many"}, 400, "votes_per_item"),
        ({"min_seconds": -1}, 400, "min_seconds"),
        ({"items": []}, 400, "items"),
        ({"unknown": 1}, 400, "unknown"),
    ]
    for change, status, field in cases:
        body = {**pairwise_body("bad-1"), **change}
        assert_error(admin.post("/v1/campaigns", json=body), status, field)
    body = pairwise_body("bad-2")
    body["items"][0]["prompt"] = "x" * 5000
    assert_error(admin.post("/v1/campaigns", json=body), 400, "items[0].prompt")
    body = pairwise_body("bad-3")
    body["items"][1]["b"]["image"] = "data:image/png;base64," + "QUJD" * 10
    assert_error(admin.post("/v1/campaigns", json=body), 400, "items[1].b.image")
    body = pairwise_body("bad-4")
    body["items"][0]["a"]["image"] = "/etc/passwd"
    assert_error(admin.post("/v1/campaigns", json=body), 400, "items[0].a.image")
    body = pairwise_body("bad-5")
    del body["items"][0]["b"]
    err = assert_error(admin.post("/v1/campaigns", json=body), 400, "(body)")
    assert "items[0]" in err["message"] and "'b'" in err["message"]
    bad_json = admin.post(
        "/v1/campaigns", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert_error(bad_json, 400, "(body)")
    body = rating_body("bad-6", criterion="preference")
    assert_error(admin.post("/v1/campaigns", json=body), 400, "criterion")
    r = admin.post("/v1/campaigns", json=pairwise_body("ok-after-bad"))
    assert r.status_code == 201, r.text
    assert_error(
        admin.post("/v1/campaigns/ok-after-bad/invitations", json={"count": 0}), 400, "count"
    )
    assert_error(
        admin.post("/v1/campaigns/ok-after-bad/invitations", json={"count": "x"}), 400, "count"
    )


def test_tokens_answers_penalty_and_isolation(admin: httpx.Client, anon: httpx.Client) -> None:
    made = admin.post("/v1/campaigns", json=pairwise_body("tok-1", min_seconds=60, penalty_s=0.4))
    assert made.status_code == 201, made.text
    first, second = invite(admin, "tok-1", 2)
    assert first["url"] == f"/ui/label/{first['token']}" and first["token"] != second["token"]
    # the labelling pages: the participant's language, no referrer, no site navigation
    for url in (first["url"] + "?lang=es", "/ui/label/" + "z" * 32):
        page = anon.get(url).text
        assert '<meta name="referrer" content="no-referrer">' in page and "label.css" in page
        assert "site-header" not in page and "ui.css" not in page
    assert '<html lang="es">' in anon.get(first["url"] + "?lang=es").text
    for bad in ("x" * 32, "short", first["token"][:-1] + "."):
        assert_error(anon.get(f"/v1/label/{bad}/next"), 404, "token")
    task = anon.get(f"/v1/label/{first['token']}/next").json()["task"]
    assert set(task) >= {"id", "kind", "criterion", "question", "images", "session"}
    assert set(task["images"]) == {"a", "b"} and "m1" not in json.dumps(task)
    assert task["session"] == {"index": 1, "size": 3, "number": 1}
    # a reload gives the same pending task
    assert anon.get(f"/v1/label/{first['token']}/next").json()["task"]["id"] == task["id"]
    # images carry no token (a CDN can share them); the older per-link URL checks its token
    img = task["images"]["a"]
    assert first["token"] not in img and img.startswith("/v1/campaign-images/tok-1/")
    assert anon.get(img).headers["content-type"] == "image/jpeg"  # every image re-encoded
    key = img.rsplit("/", 1)[-1]
    assert anon.get(f"/v1/label/{first['token']}/images/{key}").content == anon.get(img).content
    assert_error(anon.get(f"/v1/label/{'y' * 32}/images/{key}"), 404, "token")
    post = lambda tok, **kw: anon.post(f"/v1/label/{tok}/answers", json=kw)  # noqa: E731
    # wrong shapes and types
    assert_error(post(first["token"], task=task["id"], choice="c"), 400, "choice")
    assert_error(post(first["token"], task=task["id"], rating=3), 400, "choice")
    assert_error(post(first["token"], task=task["id"]), 400, "(body)")
    assert_error(post(first["token"], task="t" + "0" * 16, choice="a"), 400, "task")
    assert_error(post(first["token"], task=123, choice="a"), 400, "task")
    assert_error(
        post(first["token"], task=task["id"], choice="a", reason="r" * 2000), 400, "reason"
    )
    # the second annotator can neither see nor answer the first one's task
    other = anon.get(f"/v1/label/{second['token']}/next").json()["task"]
    assert other["id"] != task["id"]
    assert_error(post(second["token"], task=task["id"], choice="a"), 400, "task")
    # too fast: refused with the penalty; during the pause: refused with what remains
    fast = post(first["token"], task=task["id"], choice="a").json()
    assert fast == {"accepted": False, "penalty_s": 0.4}
    again = post(first["token"], task=task["id"], choice="a").json()
    assert again["accepted"] is False and 0 < again["penalty_s"] <= 0.4
    log = admin.get("/v1/campaigns/tok-1/attempts").text.splitlines()
    kept = [json.loads(x) for x in log]
    assert [(e["fast"], e.get("paused", False), e["accepted"]) for e in kept] == [
        (True, False, False),
        (False, True, False),
    ]
    assert all(e["annotator"] == "a01" for e in kept) and first["token"] not in "".join(log)


def test_auth_failures_are_throttled(tmp_path: Path) -> None:
    env = {"JUDGE_SERVE_ADMIN_KEYS": "admin", "JUDGE_SERVE_AUTH_FAILURES_PER_MINUTE": "3"}
    with live_service(env, tmp_path) as svc, svc.client() as c:
        codes = [c.get(f"/v1/label/{'z' * 32}/next").status_code for _ in range(5)]
        assert codes[:3] == [404, 404, 404] and codes[-1] == 429


def test_votes_export_reads_as_votes_and_skips_excluded(
    admin: httpx.Client, anon: httpx.Client, tmp_path: Path
) -> None:
    qc = {"min_validation_accuracy": 0.0, "min_side_answers": 3}  # only the position rule
    body = pairwise_body("exp-1", n_items=4, votes_per_item=3, min_seconds=0.0, qc=qc)
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    people = invite(admin, "exp-1", 4)
    status = admin.get("/v1/campaigns/exp-1").json()
    assert answer_all(anon, people[0]["token"], lambda t: {"choice": "a"}) >= 3  # always left
    turns = iter(range(1000))
    for p in people[1:]:  # alternate sides
        answer_all(anon, p["token"], lambda t: {"choice": "ab"[next(turns) % 2]})
    rows = [json.loads(x) for x in admin.get("/v1/campaigns/exp-1/votes").text.splitlines()]
    assert rows and all(r["prompt_id"].startswith("p") for r in rows)  # no validation tasks
    assert {r["annotator"] for r in rows} <= {p["annotator"] for p in people}
    assert set(rows[0]) >= {"prompt_id", "model_a", "model_b", "winner", "criterion",
                            "annotator", "shown_left", "seconds", "excluded"}  # fmt: skip
    assert len(rows) == status["target_votes"]
    path = tmp_path / "votes.jsonl"
    path.write_text(admin.get("/v1/campaigns/exp-1/votes").text)
    kept = [r for r in rows if not r["excluded"]]
    assert {r["annotator"] for r in rows if r["excluded"]} == {"a01"}
    assert kept and len(read_votes(path)) == len(kept)
    csv = admin.get("/v1/campaigns/exp-1/votes", params={"format": "csv"})
    assert csv.headers["content-type"].startswith("text/csv")
    assert csv.text.splitlines()[0].startswith("prompt_id,model_a,model_b,winner,criterion")
    assert_error(
        admin.get("/v1/campaigns/exp-1/votes", params={"format": "xml"}), 400, "query.format"
    )
    assert_error(admin.get("/v1/campaigns/exp-1/ratings"), 400, "id")
    report = admin.get("/v1/campaigns/exp-1/report", params={"bootstrap": 20}).json()
    assert report["progress"]["labels"] == status["target_votes"]
    flagged = {a["id"]: a["reasons"] for a in report["annotators"] if a["flagged"]}
    assert list(flagged) == ["a01"] and flagged["a01"][0].startswith("position: chose the left")
    # closing ends every link, new or old: 410 "closed" (the page thanks the annotator)
    assert admin.post("/v1/campaigns/exp-1/status", json={"status": "closed"}).status_code == 200
    fresh = invite(admin, "exp-1", 1)[0]
    for p in (fresh, people[1]):
        ended = anon.get(f"/v1/label/{p['token']}/next")
        assert ended.status_code == 410 and ended.json()["error"]["code"] == "closed"


def test_rating_and_ranking_campaigns(
    admin: httpx.Client, anon: httpx.Client, tmp_path: Path
) -> None:
    body = rating_body("rate-1", min_seconds=0, votes_per_item=2, validation="none")
    made = admin.post("/v1/campaigns", json=body)
    assert made.status_code == 201
    raters = invite(admin, "rate-1", 2)
    for n, p in enumerate(raters):
        task = anon.get(f"/v1/label/{p['token']}/next").json()["task"]
        assert len(task["images"]) == 2 and task["instruction"] == "Make the sky orange."
        assert set(task["anchors"]) == {"1", "2", "3", "4", "5"}
        assert_error(anon.post(f"/v1/label/{p['token']}/answers",
                               json={"task": task["id"], "rating": 9}), 400, "rating")  # fmt: skip
        answer_all(anon, p["token"], lambda t, n=n: {"rating": 4 + n % 2, "reason": "sky  orange"})
    rows = [json.loads(x) for x in admin.get("/v1/campaigns/rate-1/ratings").text.splitlines()]
    assert len(rows) == 8 and {r["rating"] for r in rows} == {4, 5}
    assert rows[0]["reason"] == "sky  orange"
    lines = admin.get("/v1/campaigns/rate-1/ratings", params={"format": "edit-ratings"}).text
    (tmp_path / "edits.jsonl").write_text(lines)
    for row in map(json.loads, lines.splitlines()):
        for key in ("source_image", "edited_image"):
            (tmp_path / row[key]).parent.mkdir(exist_ok=True)
            (tmp_path / row[key]).write_bytes(png("#123", 1))
    items = EditRatingsDataset().load(tmp_path / "edits.jsonl")
    assert len(items) == 4

    body = ranking_body("rank-1", min_seconds=0.0, votes_per_item=1)
    assert admin.post("/v1/campaigns", json=body).status_code == 201
    ranker = invite(admin, "rank-1", 1)[0]
    task = anon.get(f"/v1/label/{ranker['token']}/next").json()["task"]
    assert len(task["images"]) == 3
    for bad in ([0, 0, 1], [0, 1], [0, 1, 3]):
        got = anon.post(
            f"/v1/label/{ranker['token']}/answers", json={"task": task["id"], "order": bad}
        )
        assert got.status_code == 400, got.text
    answer_all(anon, ranker["token"], lambda t: {"order": [2, 0, 1]})
    votes = [json.loads(x) for x in admin.get("/v1/campaigns/rank-1/votes").text.splitlines()]
    assert len(votes) == 3 * 3  # 3 items x 3 pairs each
    assert all(v["shown_left"] is None for v in votes)


def test_validation_items_marked_by_the_admin(admin: httpx.Client, anon: httpx.Client) -> None:
    body = pairwise_body("val-1", n_items=6, validation="none", min_seconds=0.0, validation_every=2)
    body["items"].append({"id": "gold", "a": {"model": "good", "image": data_url(png("#0a0", 2))},
                          "b": {"model": "bad", "image": data_url(png("#000", 0))},
                          "expected": "a"})  # fmt: skip
    made = admin.post("/v1/campaigns", json=body).json()
    assert made["n_items"] == 6 and made["n_validation"] == 1
    p = invite(admin, "val-1", 1)[0]
    answer_all(anon, p["token"], lambda t: {"choice": "a"})
    attempts = [json.loads(x) for x in admin.get("/v1/campaigns/val-1/attempts").text.splitlines()]
    gold = [a for a in attempts if a["validation"]]
    assert len(gold) == 1 and gold[0]["item"] == "gold"
    assert gold[0]["correct"] == (gold[0]["choice"] == "a")
    votes = admin.get("/v1/campaigns/val-1/votes").text
    assert "gold" not in votes
