"""Study routes through the live service: admin-only registration and export, validation
that names the field, participant codes as credentials, atomic prompt storage (concurrent
clients lose nothing; a resubmission replaces only its own prompt and keeps history), and
the participant pages without JavaScript (escaping, CSP, cookies, friendly errors)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import LiveService, assert_error, live_service
from tests.api.study_helpers import study_body
from tests.conftest import png_data_url


@pytest.fixture(scope="module")
def service(module_tmp: Path) -> Iterator[LiveService]:
    env = {"JUDGE_SERVE_API_KEYS": "reader", "JUDGE_SERVE_ADMIN_KEYS": "admin"}
    with live_service(env, module_tmp / "data") as svc:
        yield svc


def create(admin: httpx.Client, **overrides: object) -> tuple[str, list[str]]:
    body = study_body(**overrides)
    r = admin.post("/v1/studies", json=body)
    assert r.status_code == 201, r.text
    return body["id"], r.json()["participants"]


def export(admin: httpx.Client, study: str, history: bool = False) -> list[dict]:
    r = admin.get(f"/v1/studies/{study}/prompts", params={"history": str(history).lower()})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in r.text.splitlines()]


def submit(client: httpx.Client, study: str, code: str, task: str, prompt: str) -> httpx.Response:
    body = {"participant": code, "task_id": task, "prompt": prompt}
    return client.post(f"/v1/studies/{study}/prompts", json=body)


def test_registration_and_export_need_an_admin_key(
    service: LiveService, admin: httpx.Client
) -> None:
    body = study_body()
    with service.client(headers={"Authorization": "Bearer reader"}) as reader:
        assert_error(reader.post("/v1/studies", json=body), 403, "Authorization")
    with service.client() as anonymous:
        assert_error(anonymous.post("/v1/studies", json=body), 401, "Authorization")
    r = admin.post("/v1/studies", json=body)
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["n_tasks"] == 4 and made["page"] == f"/ui/studies/{body['id']}"
    assert len(made["participants"]) == 2 and len(set(made["participants"])) == 2
    with service.client(headers={"Authorization": "Bearer reader"}) as reader:
        assert_error(reader.get(f"/v1/studies/{body['id']}/prompts"), 403, "Authorization")
        assert_error(reader.get(f"/v1/studies/{body['id']}"), 403, "Authorization")
    assert_error(admin.post("/v1/studies", json=body), 409, "id")
    info = admin.get(f"/v1/studies/{body['id']}").json()
    assert info["task_ids"] == ["oe_1", "co_2", "oe_3", "im_1"]
    assert [p["answered"] for p in info["participants"]] == [0, 0]


@pytest.mark.parametrize(
    ("change", "status", "field"),
    [
        ({"tasks": ["{not json"]}, 400, "tasks[0]"),
        ({"tasks": ['{"id": "a", "category": "XX", "brief": "b"}']}, 400, "tasks[0].category"),
        (
            {"tasks": ['{"id": "a", "category": "OE", "brief": "b", "colour": 1}']},
            400,
            "tasks[0].colour",
        ),
        (
            {
                "tasks": [
                    {
                        "id": "a",
                        "category": "CO",
                        "brief": "b",
                        "checklist": [{"id": "c1", "primitive": "nope", "image_check": "x"}],
                    }
                ]
            },
            400,
            "tasks[0].checklist[0].primitive",
        ),
        ({"tasks": ['{"id": "a", "category": "OE", "brief": "b"}'] * 2}, 400, "tasks[1].id"),
        ({"tasks": ['{"id": "a", "category": "IM", "brief": "b"}']}, 400, "tasks[0].target_image"),
        (
            {"tasks": ['{"id": "a", "category": "IM", "brief": "b", "target_image": "x.png"}']},
            400,
            "tasks[0].target_image",
        ),
        (
            {"targets": {"targets/im_1.png": "data:image/png;base64,AAAA"}},
            400,
            "targets['targets/im_1.png']",
        ),
        (
            {"targets": {"targets/im_1.png": png_data_url(), "extra.png": png_data_url()}},
            400,
            "targets['extra.png']",
        ),
        ({"tasks": [42]}, 400, "tasks[0].str"),
        ({"tasks": []}, 400, "tasks"),
        ({"participants": 0}, 400, "participants"),
        ({"participants": ["ok-code-1234", "OK-CODE-1234"]}, 400, "participants[1]"),
        ({"participants": ["<script>"]}, 400, "participants[0]"),
        ({"id": "../etc"}, 400, "id"),
        ({"name": "bad \ud800"}, 400, "name"),
        ({"instructions": "bad \udfff"}, 400, "instructions"),
        ({"tasks": [{"id": "a", "category": "OE", "brief": "bad \ud800"}]}, 400, "tasks[0].brief"),
        (
            {"tasks": ['{"id": "a", "category": "OE", "brief": "bad \\ud800"}']},
            400,
            "tasks[0].brief",
        ),
        ({"tasks": ["[" * 100_000]}, 400, "tasks[0]"),
        ({"max_prompt_chars": 10**9}, 400, "max_prompt_chars"),
    ],
)
def test_bad_registrations_name_the_field(
    admin: httpx.Client, change: dict, status: int, field: str
) -> None:
    raw = json.dumps(study_body(**change))  # \u escapes: lone surrogates reach the server
    r = admin.post("/v1/studies", content=raw, headers={"content-type": "application/json"})
    assert_error(r, status, field)


def test_given_codes_are_accepted_case_insensitively(
    admin: httpx.Client, anon: httpx.Client
) -> None:
    study, codes = create(admin, participants=["alice-012345", "Bob_02-45678"])
    assert codes == ["ALICE-012345", "BOB_02-45678"]
    r = submit(anon, study, " alice-012345 ", "oe_1", "a lighthouse")
    assert r.status_code == 200, r.text
    assert r.json()["participant"] == "ALICE-012345"


def test_participant_submissions_are_checked(admin: httpx.Client, anon: httpx.Client) -> None:
    study, (code, _) = create(admin, max_prompt_chars=50)
    assert_error(submit(anon, study, "WRONG-CODE", "oe_1", "x"), 403, "participant")
    assert_error(submit(anon, "no-such-study", code, "oe_1", "x"), 404, "id")
    assert_error(submit(anon, study, code, "zz_9", "x"), 400, "task_id")
    err = assert_error(submit(anon, study, code, "oe_1", "é" * 51), 400, "prompt")
    assert "51 characters; the limit is 50" in err["message"]
    assert_error(submit(anon, study, code, "oe_1", " \n "), 400, "prompt")
    r = anon.post(
        f"/v1/studies/{study}/prompts", json={"participant": code, "task_id": "oe_1", "prompt": 5}
    )
    assert_error(r, 400, "prompt")
    raw = json.dumps({"participant": code, "task_id": "oe_1", "prompt": "bad \ud800 half"})
    r = anon.post(
        f"/v1/studies/{study}/prompts", content=raw, headers={"content-type": "application/json"}
    )
    assert_error(r, 400, "prompt")
    assert export(admin, study) == []
    assert_error(admin.get("/v1/studies/no-such-study/prompts"), 404, "id")


def test_an_edit_study_refuses_an_edit_instruction_by_that_name(
    admin: httpx.Client, anon: httpx.Client
) -> None:
    study, (code, _) = create(admin, n_plain=0, kind="edit", max_prompt_chars=50)
    err = assert_error(submit(anon, study, code, "im_1", " \n "), 400, "prompt")
    assert err["message"].endswith(
        "the edit instruction is empty; write an edit instruction before submitting"
    )
    err = assert_error(submit(anon, study, code, "im_1", "é" * 51), 400, "prompt")
    assert "the edit instruction is 51 characters; the limit is 50" in err["message"]
    # a prompt study keeps its wording
    study, (code, _) = create(admin, max_prompt_chars=50)
    err = assert_error(submit(anon, study, code, "oe_1", " "), 400, "prompt")
    assert err["message"].endswith("the prompt is empty; write a prompt before submitting")


def test_two_clients_submitting_at_once_lose_nothing(
    service: LiveService, admin: httpx.Client
) -> None:
    study, codes = create(admin, n_plain=9)
    tasks = admin.get(f"/v1/studies/{study}").json()["task_ids"]
    jobs = [(code, task, f"{code} → {task} 🚀") for code in codes for task in tasks]
    jobs += [(codes[0], "oe_1", f"revision {i}") for i in range(20)]  # same cell, raced

    def send(job: tuple[str, str, str]) -> dict:
        with service.client() as c:
            r = submit(c, study, *job)
            assert r.status_code == 200, r.text
            return r.json()

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(send, jobs))
    revisions = sorted(
        a["revision"] for a in answers if a["participant"] == codes[0] and a["task_id"] == "oe_1"
    )
    assert revisions == list(range(1, 22)), "every write got its own revision number"
    rows = export(admin, study)
    assert len(rows) == len(codes) * len(tasks)
    cells = {(r["participant"], r["task_id"]): r["prompt"] for r in rows}
    assert cells[(codes[1], "oe_1")] == f"{codes[1]} → oe_1 🚀", "B untouched by A's rewrites"
    for code in codes:
        for task in tasks:
            if (code, task) != (codes[0], "oe_1"):
                assert cells[(code, task)] == f"{code} → {task} 🚀"
    history = export(admin, study, history=True)
    assert len(history) == len(jobs)
    last = [r for r in history if r["participant"] == codes[0] and r["task_id"] == "oe_1"][-1]
    assert cells[(codes[0], "oe_1")] == last["prompt"]
    info = admin.get(f"/v1/studies/{study}").json()
    assert {p["answered"] for p in info["participants"]} == {len(tasks)}


def page_client(service: LiveService) -> httpx.Client:
    return service.client(headers={"origin": service.base_url})


def test_pages_escape_send_csp_and_keep_the_code_in_a_cookie(
    service: LiveService, admin: httpx.Client
) -> None:
    study, (code, _) = create(admin, max_prompt_chars=60)
    with page_client(service) as c:
        page = c.get(f"/ui/studies/{study}")
        assert page.status_code == 200
        csp = page.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp
        assert page.headers["x-frame-options"] == "DENY"
        assert "Harbour study &lt;i&gt;draft&lt;/i&gt;" in page.text and "<i>" not in page.text
        assert 'src="http' not in page.text and 'href="http' not in page.text  # nothing remote
        # the target needs a code first
        assert c.get(f"/ui/studies/{study}/targets/im_1").status_code == 403
        r = c.post(f"/ui/studies/{study}/code", data={"code": "nope-nope"})
        assert r.status_code == 403 and "not valid for this study" in r.text
        r = c.post(f"/ui/studies/{study}/code", data={"code": code.lower()})
        assert r.status_code == 303
        cookie = r.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert f"Path=/ui/studies/{study}" in cookie
        page = c.get(f"/ui/studies/{study}")
        assert "Task 1 of 4" in page.text
        assert "&lt;b&gt;not bold&lt;/b&gt; &amp; {{ not jinja }}" in page.text
        image = c.get(f"/ui/studies/{study}/targets/im_1")
        assert image.status_code == 200 and image.headers["content-type"] == "image/png"
        assert image.content.startswith(b"\x89PNG")
        r = c.post(f"/ui/studies/{study}/prompts", data={"task_id": "oe_1", "prompt": "x" * 61})
        assert r.status_code == 400 and "the limit is 60" in r.text and "x" * 61 in r.text
        r = c.post(f"/ui/studies/{study}/prompts", data={"task_id": "zz", "prompt": "x"})
        assert r.status_code == 400 and "Unknown task" in r.text
        evil = "</textarea><script>alert(1)</script>\r\nline two"
        r = c.post(f"/ui/studies/{study}/prompts", data={"task_id": "oe_1", "prompt": evil})
        assert r.status_code == 303 and r.headers["location"] == f"/ui/studies/{study}?saved=1"
        page = c.get(f"/ui/studies/{study}?task=1")
        assert "<script>alert" not in page.text and "&lt;/textarea&gt;&lt;script&gt;" in page.text
        assert c.get(f"/ui/studies/{study}?task=9").status_code == 404
        assert c.get(f"/ui/studies/{study}?task=abc").status_code == 404
        assert c.post(f"/ui/studies/{study}/leave").status_code == 303
    assert export(admin, study)[0]["prompt"] == evil.replace("\r\n", "\n")


def test_pages_refuse_foreign_origins_and_unknown_things(
    service: LiveService, admin: httpx.Client
) -> None:
    study, (code, _) = create(admin)
    with service.client(headers={"origin": "http://evil.example"}) as c:
        r = c.post(f"/ui/studies/{study}/code", data={"code": code})
        assert r.status_code == 403 and "set-cookie" not in r.headers
    with page_client(service) as c:
        r = c.get("/ui/studies/nope")
        assert r.status_code == 404 and "Study not found" in r.text
        assert r.headers["content-type"].startswith("text/html")
        assert c.post("/ui/studies/nope/prompts", data={"prompt": "x"}).status_code == 404
        r = c.post(f"/ui/studies/{study}/prompts", data={"task_id": "oe_1", "prompt": "x"})
        assert r.status_code == 303, "no code yet: back to the code form"
        assert export(admin, study) == []


def test_static_files_and_home(anon: httpx.Client) -> None:
    css = anon.get("/ui/static/ui.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    js = anon.get("/ui/static/ui.js")
    assert js.headers["content-type"].startswith("text/javascript")
    assert anon.get("/ui/static/../app.py").status_code == 404
    assert anon.get("/ui/static/nope.css").status_code == 404
    home = anon.get("/ui/")
    assert home.status_code == 200 and "content-security-policy" in home.headers
    for section in ("/ui", "/ui/probes", "/ui/results"):  # each section's index, slash added
        r = anon.get(section, follow_redirects=False)
        assert r.status_code == 308 and r.headers["location"] == f"{section}/"


def test_more_participants_can_join_a_running_study(
    admin: httpx.Client, anon: httpx.Client, service: LiveService
) -> None:
    study, first = create(admin, participants=["first-12345"])
    assert first == ["FIRST-12345"]
    r = admin.post(f"/v1/studies/{study}/participants", json={"participants": 2})
    assert r.status_code == 201, r.text
    more = r.json()["participants"]
    assert len(more) == 2 and "FIRST-12345" not in more
    r = admin.post(f"/v1/studies/{study}/participants", json={"participants": ["late-345678"]})
    assert r.json() == {"participants": ["LATE-345678"]}
    assert_error(
        admin.post(f"/v1/studies/{study}/participants", json={"participants": ["first-12345"]}),
        409,
        "participants",
    )
    assert_error(
        admin.post(f"/v1/studies/{study}/participants", json={"participants": 1000}),
        400,
        "participants",
    )
    assert_error(admin.post("/v1/studies/nope/participants", json={"participants": 1}), 404, "id")
    with service.client(headers={"Authorization": "Bearer reader"}) as reader:
        r = reader.post(f"/v1/studies/{study}/participants", json={"participants": 1})
        assert_error(r, 403, "Authorization")
    assert submit(anon, study, "late-345678", "oe_1", "joined late").status_code == 200
    info = admin.get(f"/v1/studies/{study}").json()
    assert sorted(p["participant"] for p in info["participants"]) == sorted(
        ["FIRST-12345", "LATE-345678", *more]
    )
