"""Shared memories through the live service: a refused add changes nothing, damage is
reported (never a 500) and repairable, concurrent creators lose nothing, only admin keys
write, and no error names a server path."""

from __future__ import annotations

import base64
import shutil
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from api.state import state_of
from tests.api.conftest import LiveService, assert_error, copy_shipped_memory, live_service
from tests.api.test_service import fake_model_env
from tests.conftest import png_data_url, submission
from tests.fakes.provider import FakeProvider


@pytest.fixture(scope="module")
def service(module_tmp: Path) -> Iterator[LiveService]:
    memories = module_tmp / "memories"
    memories.mkdir()
    copy_shipped_memory("avt-image", memories)
    with live_service({"JUDGE_MEMORY_DIR": str(memories)}, module_tmp / "data") as svc:
        yield svc


@pytest.fixture
def client(service: LiveService) -> Iterator[httpx.Client]:
    with service.client() as c:
        yield c


def prompt_row(i: int, text: str = "a calm lake at dawn") -> dict:
    return {"id": f"e{i}", "modality": "prompt", "prompt": f"{text} {i}", "scores": {"q": 3}}


def memory_dir(service: LiveService) -> Path:
    return Path(state_of(service.app).judge.store.root)


def test_an_id_sent_twice_is_refused_and_breaks_nothing(
    service: LiveService, client: httpx.Client
) -> None:
    name = f"dup-{uuid.uuid4().hex[:8]}"
    url = f"/v1/memories/{name}/exemplars"
    assert client.post(url, json={"exemplars": [prompt_row(0)]}).status_code == 200
    err = assert_error(
        client.post(url, json={"exemplars": [prompt_row(1), prompt_row(1)]}), 400, "exemplars"
    )
    assert "more than once" in err["message"]
    assert (memory_dir(service) / name / "CURRENT").read_text() == "v0001"
    listed = client.get("/v1/memories")
    assert listed.status_code == 200
    assert {m["name"]: m["status"] for m in listed.json()}[name] == "ok"
    assert client.post(url, json={"exemplars": [prompt_row(2)]}).json()["count"] == 2
    r = client.post(f"/v1/memories/{name}/search", json={"text": "a calm lake", "k": 2})
    assert r.status_code == 200 and len(r.json()) == 2


def test_a_damaged_memory_is_reported_and_repaired(
    service: LiveService, client: httpx.Client
) -> None:
    name = f"dmg-{uuid.uuid4().hex[:8]}"
    url = f"/v1/memories/{name}/exemplars"
    client.post(url, json={"exemplars": [prompt_row(0)]})
    client.post(url, json={"exemplars": [prompt_row(1)]})
    folder = memory_dir(service) / name  # a damaged version goes live behind our back
    shutil.copytree(folder / "v0002", folder / "v0003")
    (folder / "v0003" / "index.faiss").write_bytes(b"garbage")
    (folder / "CURRENT").write_text("v0003")
    listed = client.get("/v1/memories")
    assert listed.status_code == 200, listed.text
    entry = {m["name"]: m for m in listed.json()}[name]
    assert entry["status"] == "damaged" and entry["version"] == "v0003"
    assert "index.faiss" in entry["reason"]
    assert str(service.data_dir.parent) not in listed.text
    assert {m["name"]: m["status"] for m in listed.json()}["avt-image"] == "ok"
    assert client.get(f"/v1/memories/{name}").json()["status"] == "damaged"
    r = client.post(f"/v1/memories/{name}/search", json={"text": "lake"})
    assert_error(r, 409, "name")
    assert_error(client.post(url, json={"exemplars": [prompt_row(2)]}), 409, "name")
    r = client.post(f"/v1/memories/{name}/repair")
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "ok" and r.json()["count"] == 2
    assert client.post(url, json={"exemplars": [prompt_row(2)]}).json()["count"] == 3
    assert_error(client.post("/v1/memories/nope-nope/repair"), 404, "name")


@pytest.mark.parametrize("trial", range(3))
def test_concurrent_clients_creating_one_memory_lose_no_exemplar(
    service: LiveService, trial: int
) -> None:
    name = f"race-{trial}-{uuid.uuid4().hex[:8]}"

    def post(i: int) -> int:
        with service.client() as c:
            r = c.post(f"/v1/memories/{name}/exemplars", json={"exemplars": [prompt_row(i)]})
            return r.status_code

    with ThreadPoolExecutor(20) as pool:
        codes = list(pool.map(post, range(20)))
    assert codes == [200] * 20
    with service.client() as c:
        assert c.get(f"/v1/memories/{name}").json()["count"] == 20


def test_a_failed_image_add_leaves_no_files_and_names_no_path(
    service: LiveService, client: httpx.Client
) -> None:
    name = f"img-{uuid.uuid4().hex[:8]}"
    url = f"/v1/memories/{name}/exemplars"
    row = {"id": "i0", "modality": "image", "scores": {"q": 3}, "image": png_data_url("red")}
    before = {p for p in service.data_dir.parent.rglob("*") if p.is_file()}
    # a valid image, then the same id again: refused after the image was vetted
    r = client.post(url, json={"exemplars": [row, row | {"image": png_data_url("blue")}]})
    assert_error(r, 400, "exemplars")
    assert str(service.data_dir.parent) not in r.text
    after = {p for p in service.data_dir.parent.rglob("*") if p.is_file()}
    assert not [p for p in after - before if p.suffix == ".img"], sorted(after - before)
    assert name not in {m["name"] for m in client.get("/v1/memories").json()}
    # the same image accepted: stored inside the memory, relative to it
    r = client.post(url, json={"exemplars": [row]})
    assert r.status_code == 200, r.text
    assert len(list((memory_dir(service) / name / "images").glob("*.img"))) == 1


# -- who may write ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def keyed(module_tmp: Path) -> Iterator[LiveService]:
    env = {
        "JUDGE_SERVE_API_KEYS": "reader",
        "JUDGE_SERVE_ADMIN_KEYS": "admin",
        "JUDGE_MEMORY_DIR": str(module_tmp / "keyed-memories"),
    }
    with live_service(env, module_tmp / "keyed") as svc:
        yield svc


def test_memory_writes_need_an_admin_key(keyed: LiveService) -> None:
    name = f"adm-{uuid.uuid4().hex[:8]}"
    url = f"/v1/memories/{name}/exemplars"
    body = {"exemplars": [prompt_row(0)]}
    with keyed.client(headers={"Authorization": "Bearer admin"}) as admin:
        assert admin.post(url, json=body).status_code == 200
        assert admin.get("/v1/skills").status_code == 200, "admin keys may read too"
    with keyed.client(headers={"Authorization": "Bearer reader"}) as reader:
        r = reader.post(url, json={"exemplars": [prompt_row(1)]})
        err = assert_error(r, 403, "Authorization")
        assert "admin key" in err["message"]
        assert_error(reader.post(f"/v1/memories/{name}/repair"), 403, "Authorization")
        assert reader.get(f"/v1/memories/{name}").json()["count"] == 1
        r = reader.post(f"/v1/memories/{name}/search", json={"text": "lake", "k": 1})
        assert r.status_code == 200
    with keyed.client() as anonymous:
        assert_error(anonymous.post(url, json=body), 401, "Authorization")


def test_a_public_service_without_keys_refuses_memory_writes(tmp_path: Path) -> None:
    """JUDGE_SERVE_ALLOW_OPEN_PUBLIC without keys: reading stays open, writing is refused."""
    env = {"JUDGE_SERVE_ALLOW_OPEN_PUBLIC": "true", "JUDGE_SERVE_HOST": "0.0.0.0"}
    with live_service(env, tmp_path) as svc, svc.client() as c:
        r = c.post("/v1/memories/x/exemplars", json={"exemplars": [prompt_row(0)]})
        assert_error(r, 403, "Authorization")
        assert c.get("/v1/memories").status_code == 200


def test_exemplar_images_are_never_read_back_from_a_request_path(client: httpx.Client) -> None:
    """An ``image`` that names a server file instead of carrying data is refused."""
    raw = base64.b64encode(b"x").decode()
    r = client.post(
        "/v1/memories/paths/exemplars",
        json={"exemplars": [{"id": "a", "modality": "image", "scores": {"q": 3}, "image": raw}]},
    )
    assert r.status_code in (400, 422)


def test_scoring_with_a_damaged_memory_leaves_its_dimensions_unscored(
    module_tmp: Path, provider: FakeProvider
) -> None:
    """The avt-image memory's live version is damaged: /v1/score still answers 200, and the
    dimension calibrated by that memory is unscored with a reason (no server path)."""
    memories = module_tmp / "damaged-memories"
    memories.mkdir()
    copy_shipped_memory("avt-image", memories)
    folder = memories / "avt-image"
    current = (folder / "CURRENT").read_text().strip()
    shutil.copytree(folder / current, folder / "v0099")
    (folder / "v0099" / "exemplars.jsonl").write_text("{not json\n")
    (folder / "CURRENT").write_text("v0099")
    env = {**fake_model_env(provider), "JUDGE_MEMORY_DIR": str(memories)}
    with live_service(env, module_tmp / "damaged") as svc, svc.client() as c:
        body = {
            "submission": submission(prompt="damaged memory"),
            "options": {"skills": ["avt_appeal"]},
        }
        r = c.post("/v1/score", json=body)
        assert r.status_code == 200, r.text
        dims = r.json()["subjective"]["image"]
        unscored = [d for d in dims.values() if d.get("score") is None]
        assert unscored and all("damaged" in d["reason"] for d in unscored), dims
        assert str(memories) not in r.text
