"""Hostile and malformed input against the live service: every one gets a 4xx JSON error
naming the field, never a 5xx, and the service stays healthy.

Hostile URLs point only at loopback, private or link-local addresses; the service must
refuse them before connecting, which a socket spy and a loopback listener both check.
"""

from __future__ import annotations

import base64
import io
import json
import os
import select
import socket
import struct
import uuid
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from tests.api.conftest import LiveService, assert_error, copy_shipped_memory, live_service
from tests.conftest import png_data_url, submission
from tests.fakes.provider import FakeProvider

MAX_BODY = 300_000
MAX_IMAGE = 60_000
MAX_PIXELS = 1_000_000


@pytest.fixture(scope="module")
def service(module_tmp: Path, provider_session: FakeProvider) -> Iterator[LiveService]:
    env = {
        "JUDGE_MODEL": "openai/fake-judge",
        "JUDGE_API_BASE": provider_session.base_url,
        "JUDGE_API_KEY": "test-key",
        "JUDGE_BACKOFF_BASE_S": "0.001",
        "JUDGE_BACKOFF_MAX_S": "0.01",
        "JUDGE_SERVE_MAX_BODY_BYTES": str(MAX_BODY),
        "JUDGE_IMAGE_MAX_BYTES": str(MAX_IMAGE),
        "JUDGE_IMAGE_MAX_PIXELS": str(MAX_PIXELS),
    }
    memories = module_tmp / "memories"
    memories.mkdir()
    copy_shipped_memory("avt-image", memories)
    env["JUDGE_MEMORY_DIR"] = str(memories)
    with live_service(env, module_tmp / "default") as svc:
        yield svc


@pytest.fixture(scope="module")
def remote_service(module_tmp: Path) -> Iterator[LiveService]:
    """URL images enabled (local backend: nothing here gets as far as scoring)."""
    memories = module_tmp / "remote-memories"
    memories.mkdir()
    copy_shipped_memory("avt-image", memories)
    env = {
        "JUDGE_ALLOW_REMOTE_IMAGES": "true",
        "JUDGE_IMAGE_MAX_PIXELS": str(MAX_PIXELS),
        "JUDGE_MEMORY_DIR": str(memories),
    }
    with live_service(env, module_tmp / "remote") as svc:
        yield svc


@pytest.fixture
def client(service: LiveService) -> Iterator[httpx.Client]:
    with service.client() as c:
        yield c
    assert_healthy(service)


@pytest.fixture
def remote_client(remote_service: LiveService) -> Iterator[httpx.Client]:
    with remote_service.client() as c:
        yield c
    assert_healthy(remote_service)


def assert_healthy(svc: LiveService) -> None:
    with svc.client(timeout=10) as c:
        assert c.get("/healthz").status_code == 200
        assert c.get("/readyz").status_code == 200


# -- building hostile payloads ---------------------------------------------------------------------


def data_url(raw: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64,{base64.b64encode(raw).decode()}"


def png_claiming(width: int, height: int) -> bytes:
    """A ~70-byte PNG whose header declares ``width`` x ``height`` pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def encoded(img: Image.Image, fmt: str, **kw: Any) -> bytes:
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def noise_png(side: int) -> bytes:
    return encoded(Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)), "PNG")


def sub(prompt: str | None = None, **changes: Any) -> dict:
    """A valid submission, unique by content, with top-level changes applied."""
    s = submission(prompt=prompt or f"a red cube #{uuid.uuid4().hex[:8]}")
    s.update(changes)
    return s


def with_images(*refs: str) -> dict:
    return sub(images=list(refs))


def with_task(**changes: Any) -> dict:
    s = sub()
    s["task"].update(changes)
    return s


def with_check(index: int, **changes: Any) -> dict:
    s = sub()
    s["task"]["checklist"][index].update(changes)
    return s


def without(*keys: str) -> dict:
    s = sub()
    for k in keys:
        del s[k]
    return s


def prompt_replaced_by(raw: str) -> bytes:
    """A valid submission's JSON text with the prompt's value replaced by ``raw``."""
    s = sub()
    return json.dumps(s).replace(json.dumps(s["prompt"]), raw, 1).encode()


# -- the request body ------------------------------------------------------------------------------


def test_body_over_the_limit_with_content_length(client: httpx.Client) -> None:
    body = json.dumps(sub(prompt="x" * (MAX_BODY + 10))).encode()
    r = client.post("/v1/score", content=body, headers={"content-type": "application/json"})
    err = assert_error(r, 413, "(body)")
    assert str(MAX_BODY) in err["message"]


def test_body_over_the_limit_chunked_without_length(client: httpx.Client) -> None:
    body = json.dumps(sub(prompt="x" * (MAX_BODY + 10))).encode()

    def chunks() -> Iterator[bytes]:
        for i in range(0, len(body), 16_384):
            yield body[i : i + 16_384]

    r = client.post("/v1/score", content=chunks(), headers={"content-type": "application/json"})
    assert "content-length" not in r.request.headers
    assert r.request.headers["transfer-encoding"] == "chunked"
    assert_error(r, 413, "(body)")


def test_memory_routes_share_the_body_limit(client: httpx.Client) -> None:
    body = json.dumps({"text": "x" * (MAX_BODY + 10)}).encode()
    r = client.post(
        "/v1/memories/avt-image/search",
        content=body,
        headers={"content-type": "application/json"},
    )
    assert_error(r, 413, "(body)")


# -- images ----------------------------------------------------------------------------------------


IMAGE_CASES: dict[str, tuple[Callable[[], dict], str, str]] = {
    # name: (payload factory, field, a word the message must contain)
    "over-image-bytes": (lambda: with_images(data_url(noise_png(160))), "images[0]", "byte"),
    "bomb-hand-made-ihdr": (
        lambda: with_images(data_url(png_claiming(20_000, 20_000))),
        "images[0]",
        "pixels",
    ),
    "bomb-mode-1": (
        lambda: with_images(data_url(encoded(Image.new("1", (3000, 3000)), "PNG"))),
        "images[0]",
        "pixels",
    ),
    "tiff": (
        lambda: with_images(data_url(encoded(Image.new("RGB", (8, 8)), "TIFF"), "image/tiff")),
        "images[0]",
        "TIFF",
    ),
    "ico": (
        lambda: with_images(data_url(encoded(Image.new("RGB", (16, 16)), "ICO"), "image/x-icon")),
        "images[0]",
        "ICO",
    ),
    "not-an-image": (
        lambda: with_images(data_url(b"GIF89 certainly not an image at all")),
        "images[0]",
        "image",
    ),
    "truncated-png": (
        lambda: with_images(png_data_url()[:-40] + "A" * 4),
        "images[0]",
        "image",
    ),
    "invalid-base64": (
        lambda: with_images("data:image/png;base64,@@not*base64!!"),
        "images[0]",
        "base64",
    ),
    "data-url-not-base64": (lambda: with_images("data:image/png,rawbytes"), "images[0]", "base64"),
    "second-image-bad": (
        lambda: with_images(png_data_url(), "data:image/png;base64,%%%"),
        "images[1]",
        "base64",
    ),
    "local-path": (lambda: with_images("/etc/passwd"), "images[0]", "path"),
    "relative-path": (lambda: with_images("../../../../etc/passwd"), "images[0]", "path"),
    "file-url": (lambda: with_images("file:///etc/passwd"), "images[0]", "file"),
    "http-url": (lambda: with_images("http://127.0.0.1/x.png"), "images[0]", "URL"),
    "https-url-disabled": (lambda: with_images("https://127.0.0.1/x.png"), "images[0]", "disabled"),
    "empty-string": (lambda: with_images(""), "images[0]", "image"),
    "target-image-path": (
        lambda: with_task(category="IM", target_image="/etc/passwd"),
        "task.target_image",
        "path",
    ),
    "target-image-bomb": (
        lambda: with_task(category="IM", target_image=data_url(png_claiming(30_000, 30_000))),
        "task.target_image",
        "pixels",
    ),
}


@pytest.mark.parametrize("case", list(IMAGE_CASES))
def test_hostile_images_are_refused(client: httpx.Client, case: str) -> None:
    make, field, word = IMAGE_CASES[case]
    r = client.post("/v1/score", json=make())
    err = assert_error(r, (400, 413), field)
    assert word.lower() in err["message"].lower(), err
    # that a bomb is refused before it is decoded is counted, not timed:
    # tests/judge/test_images.py::test_decompression_bomb_is_rejected_without_decoding


def test_image_limits_are_the_configured_ones(client: httpx.Client) -> None:
    """Just under the limits is accepted: the limits are what JUDGE_MAX_* say."""
    small = png_data_url("green", (900, 900))  # 810k pixels, a few KB
    r = client.post("/v1/score", json=with_images(small))
    assert r.status_code == 200, r.text


# -- the submission's shape ------------------------------------------------------------------------


SCHEMA_CASES: dict[str, tuple[Callable[[], Any], str]] = {
    "prompt-number": (lambda: sub(prompt=None) | {"prompt": 42}, "prompt"),
    "images-string": (lambda: sub(images="data:image/png;base64,AAAA"), "images"),
    "images-number-item": (lambda: sub(images=[7]), "images[0]"),
    "checklist-item-list": (lambda: with_task(checklist=[["c1", "quantity"]]), "task.checklist[0]"),
    "missing-prompt": (lambda: without("prompt"), "prompt"),
    "missing-task": (lambda: without("task"), "task"),
    "missing-check-text": (
        lambda: with_check(0, prompt_check=None, image_check=None),
        "task.checklist[0]",
    ),
    "unknown-category": (lambda: with_task(category="XX"), "task.category"),
    "unknown-primitive": (
        lambda: with_check(0, primitive="telepathy"),
        "task.checklist[0].primitive",
    ),
    "duplicate-checkpoint-ids": (lambda: with_check(1, id="c1"), "task.checklist"),
    "oversized-prompt": (lambda: sub(prompt="p" * 20_001), "prompt"),
    "oversized-unicode-prompt": (lambda: sub(prompt="\U0001f600" * 20_001), "prompt"),
    "too-many-images": (lambda: sub(images=[png_data_url()] * 9), "images"),
    "unknown-top-level-field": (lambda: sub(callback_url="http://x"), "callback_url"),
    "prompter-kind": (lambda: sub(prompter={"id": "x", "kind": "robot"}), "prompter.kind"),
    "task-not-object": (lambda: sub(task="co_1"), "task"),
    "body-is-a-list": (lambda: [sub()], "(submission)"),
    "body-is-a-string": (lambda: "hello", "(submission)"),
}


@pytest.mark.parametrize("case", list(SCHEMA_CASES))
def test_malformed_submissions_name_the_field(client: httpx.Client, case: str) -> None:
    make, field = SCHEMA_CASES[case]
    r = client.post("/v1/score", json=make())
    assert_error(r, 400, field)


WRAPPED_CASES: dict[str, tuple[Callable[[], Any], str]] = {
    "unknown-option-key": (
        lambda: {"submission": sub(), "options": {"bogus": 1}},
        "options.bogus",
    ),
    "option-out-of-range": (
        lambda: {"submission": sub(), "options": {"retrieval_k": 999}},
        "options.retrieval_k",
    ),
    "option-wrong-literal": (
        lambda: {"submission": sub(), "options": {"backend": "gpu"}},
        "options.backend",
    ),
    "options-null": (lambda: {"submission": sub(), "options": None}, "options"),
    "bad-submission-inside": (
        lambda: {"submission": sub(prompt=None) | {"prompt": 1}},
        "submission.prompt",
    ),
    "submission-null": (lambda: {"submission": None}, "submission"),
    "unknown-wrapper-key": (
        lambda: {"submission": sub(), "options": {}, "extra": True},
        "extra",
    ),
    "unknown-skill": (
        lambda: {"submission": sub(), "options": {"skills": ["no_such_card"]}},
        "options.skills",
    ),
}


@pytest.mark.parametrize("case", list(WRAPPED_CASES))
def test_malformed_wrapped_requests_name_the_field(client: httpx.Client, case: str) -> None:
    make, field = WRAPPED_CASES[case]
    r = client.post("/v1/score", json=make())
    assert_error(r, 400, field)


RAW_BODY_CASES: dict[str, tuple[Callable[[], bytes], str]] = {
    "invalid-json": (lambda: b'{"task": ', "(body)"),
    "json-null": (lambda: b"null", "(submission)"),
    "deeply-nested-arrays": (lambda: b"[" * 100_000 + b"]" * 100_000, "(body)"),
    "deeply-nested-objects": (lambda: b'{"a":' * 20_000 + b"1" + b"}" * 20_000, "(body)"),
    "not-utf8": (lambda: b'{"prompt": "\xff\xfe\xfa"}', "(body)"),
    "string-for-int-option": (
        lambda: json.dumps({"submission": sub(), "options": {"retrieval_k": "NaN"}}).encode(),
        "options.retrieval_k",
    ),
    "nested-in-a-field": (lambda: prompt_replaced_by("[" * 500 + "]" * 500), "prompt"),
    "lone-surrogate-prompt": (lambda: prompt_replaced_by('"a \\ud800 b"'), "prompt"),
}


@pytest.mark.parametrize("case", list(RAW_BODY_CASES))
def test_malformed_bodies_name_the_field(client: httpx.Client, case: str) -> None:
    make, field = RAW_BODY_CASES[case]
    r = client.post("/v1/score", content=make(), headers={"content-type": "application/json"})
    assert_error(r, (400, 413), field)


def test_null_bytes_and_wide_unicode_in_the_prompt_are_just_text(client: httpx.Client) -> None:
    prompt = "nul\x00byte " + "\U0001f600\u202e\u0000\ufeff" * 2_000 + uuid.uuid4().hex
    assert len(prompt) <= 20_000
    r = client.post("/v1/score", json=sub(prompt=prompt))
    assert r.status_code == 200, r.text
    assert r.json()["status"] in {"scored", "partial", "blocked"}


# -- memory routes ---------------------------------------------------------------------------------


def test_memory_search_refuses_hostile_images(client: httpx.Client) -> None:
    for image, word in (
        ("/etc/passwd", "path"),
        (data_url(png_claiming(20_000, 20_000)), "pixels"),
        ("https://169.254.169.254/latest/meta-data", "disabled"),
        ("data:image/png;base64,!!", "base64"),
    ):
        r = client.post("/v1/memories/avt-image/search", json={"image": image})
        err = assert_error(r, 400, "image")
        assert word in err["message"], err


def test_memory_search_shape_errors(client: httpx.Client) -> None:
    assert_error(client.post("/v1/memories/avt-image/search", json={}), 400, "text")
    assert_error(client.post("/v1/memories/avt-image/search", json={"text": "a", "k": 0}), 400, "k")
    assert_error(client.post("/v1/memories/avt-image/search", json={"text": ["a"]}), 400, "text")
    assert_error(client.post("/v1/memories/-bad/search", json={"text": "a"}), 404, "name")


def prompt_exemplar(i: int = 0) -> dict:
    return {"id": f"e{i}", "modality": "prompt", "prompt": "a calm lake", "scores": {"q": 3}}


def test_adding_exemplars_refuses_hostile_input(client: httpx.Client) -> None:
    name = f"hostile-{uuid.uuid4().hex[:8]}"
    url = f"/v1/memories/{name}/exemplars"
    image_row = {"id": "i1", "modality": "image", "scores": {"q": 3}}
    for image, field in (
        ("/etc/passwd", "exemplars[0].image"),
        ("https://10.0.0.1/x.png", "exemplars[0].image"),
        (data_url(png_claiming(20_000, 20_000)), "exemplars[0].image"),
    ):
        assert_error(
            client.post(url, json={"exemplars": [image_row | {"image": image}]}), 400, field
        )
    assert_error(client.post(url, json={"exemplars": []}), 400, "exemplars")
    assert_error(client.post(url, json={"exemplars": "x"}), 400, "exemplars")
    bad_score = prompt_exemplar() | {"scores": {"q": 99}}
    assert_error(client.post(url, json={"exemplars": [bad_score]}), 400, "exemplars[0]")
    assert_error(client.post(url, json={"exemplars": [prompt_exemplar()], "junk": 1}), 400, "junk")
    # nothing was created by the refused requests
    assert name not in {m["name"] for m in client.get("/v1/memories").json()}


def test_a_bad_memory_name_is_refused_naming_it(client: httpx.Client) -> None:
    r = client.post("/v1/memories/-bad/exemplars", json={"exemplars": [prompt_exemplar()]})
    assert_error(r, (400, 404), "name")


@pytest.mark.parametrize(
    "spec", ["st:/etc", "dinov2:/nonexistent-model", "nomic:/tmp", "st:../../secrets"]
)
def test_clients_cannot_make_the_server_load_arbitrary_models(
    client: httpx.Client, spec: str
) -> None:
    """``encoder`` must not let a caller point the server at local paths (or model hubs):
    such specs are refused, naming ``encoder``, before anything is loaded."""
    name = f"enc-{uuid.uuid4().hex[:8]}"
    r = client.post(
        f"/v1/memories/{name}/exemplars",
        json={"exemplars": [prompt_exemplar()], "encoder": spec},
    )
    assert_error(r, 400, "encoder")


# -- URL images when they are enabled --------------------------------------------------------------


class ConnectSpy:
    """Records every outgoing socket connection made in this process (the server runs
    in-thread, so its fetches go through here)."""

    def __init__(self) -> None:
        self.addresses: list[Any] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real_connect = socket.socket.connect
        real_connect_ex = socket.socket.connect_ex
        spy = self

        def connect(sock: socket.socket, address: Any) -> Any:
            spy.addresses.append(address)
            return real_connect(sock, address)

        def connect_ex(sock: socket.socket, address: Any) -> Any:
            spy.addresses.append(address)
            return real_connect_ex(sock, address)

        monkeypatch.setattr(socket.socket, "connect", connect)
        monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)

    def ports(self) -> set[int]:
        return {a[1] for a in self.addresses if isinstance(a, tuple) and len(a) >= 2}

    def hosts(self) -> set[str]:
        return {a[0] for a in self.addresses if isinstance(a, tuple) and len(a) >= 2}


@pytest.fixture
def trap() -> Iterator[tuple[socket.socket, int]]:
    """A loopback listener that no refused URL may ever reach."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)
    yield sock, sock.getsockname()[1]
    sock.close()


HOSTILE_URLS = [
    "https://127.0.0.1/x.png",
    "https://10.0.0.1/x.png",
    "https://169.254.169.254/latest/meta-data",
    "https://[::1]/x.png",
    "https://localhost/x.png",
    "https://192.168.1.1/x.png",
    "https://172.16.0.1/x.png",
    "https://100.64.0.1/x.png",
    "https://0.0.0.0/x.png",
    "https://127.1/x.png",
    "https://2130706433/x.png",
    "https://[::ffff:127.0.0.1]/x.png",
    "https://[fd00::1]/x.png",
    "https://[fe80::1]/x.png",
    "https://user@127.0.0.1/x.png",
    "https://example.com@10.0.0.1/x.png",
]


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_non_public_addresses_are_refused_without_connecting(
    remote_client: httpx.Client,
    monkeypatch: pytest.MonkeyPatch,
    trap: tuple[socket.socket, int],
    url: str,
) -> None:
    listener, trap_port = trap
    spy = ConnectSpy()
    spy.install(monkeypatch)
    targets = [url]
    if url.startswith(("https://127.", "https://localhost", "https://user@127.")):
        host = url.split("/")[2]
        targets.append(url.replace(host, f"{host}:{trap_port}", 1))
    for target in targets:
        r = remote_client.post("/v1/score", json=with_images(png_data_url(), target))
        err = assert_error(r, 400, "images[1]")
        assert "non-public" in err["message"], err
        # "not fetched" is what the connection spy and the trap listener check below, not a clock
    monkeypatch.undo()
    service_port = int(remote_client.base_url.port or 0)
    assert service_port in spy.ports(), "the spy saw nothing: it is not working"
    assert spy.ports() <= {service_port}, f"unexpected connections: {spy.addresses}"
    assert not spy.hosts() - {"127.0.0.1"}, spy.addresses
    readable, _, _ = select.select([listener], [], [], 0.2)
    assert not readable, "a refused URL reached the loopback listener"


def test_metadata_address_as_the_target_image_is_refused(remote_client: httpx.Client) -> None:
    s = with_task(category="IM", target_image="https://169.254.169.254/latest/meta-data")
    err = assert_error(remote_client.post("/v1/score", json=s), 400, "task.target_image")
    assert "non-public" in err["message"]


@pytest.mark.parametrize(
    ("url", "word"),
    [
        ("http://127.0.0.1/x.png", "https"),
        ("http://localhost/x.png", "https"),
        ("ftp://127.0.0.1/x.png", "scheme"),
        ("https:///x.png", "host"),
        ("https://[::1/x.png", "URL"),
        ("https://127.0.0.1:99999/x.png", "port"),
        ("https://localhost:abc/x.png", "port"),
    ],
)
def test_malformed_or_plain_http_urls_are_refused(
    remote_client: httpx.Client, monkeypatch: pytest.MonkeyPatch, url: str, word: str
) -> None:
    spy = ConnectSpy()
    spy.install(monkeypatch)
    r = remote_client.post("/v1/score", json=with_images(url))
    monkeypatch.undo()
    err = assert_error(r, 400, "images[0]")
    assert word.lower() in err["message"].lower(), err
    assert spy.ports() <= {int(remote_client.base_url.port or 0)}, spy.addresses


def test_data_urls_still_work_when_urls_are_enabled(remote_client: httpx.Client) -> None:
    r = remote_client.post(
        "/v1/memories/avt-image/search", json={"image": png_data_url("red"), "k": 1}
    )
    assert r.status_code == 200, r.text
    assert len(r.json()) == 1
    r = remote_client.post(
        "/v1/memories/avt-image/search", json={"image": "https://127.0.0.1/x.png"}
    )
    assert "non-public" in assert_error(r, 400, "image")["message"]
