"""A tiny stand-in for the Hugging Face Hub and for raw repository files, on loopback.

It answers the only calls ``huggingface_hub`` makes for ``HfApi.list_repo_tree`` and
``hf_hub_download`` of a dataset, with the headers the real Hub sends:

- ``GET /api/datasets/{repo}/tree/{revision}?recursive=True`` — every file with its size, its
  git blob id (``oid``) and, for large files, its Git LFS sha256 (``lfs.oid``);
- ``HEAD`` and ``GET /datasets/{repo}/resolve/{revision}/{path}`` — ``X-Repo-Commit``,
  ``ETag`` (the blob id, or the LFS sha256 as ``X-Linked-Etag``), ``X-Linked-Size`` and HTTP
  ranges (``206 Partial Content``), as the library needs to resume;

and, for the authors' own files, ``GET /HOST/PATH`` of a mirror (``--mirror``), with ranges.

Faults for the tests, each used once by the next matching ``GET``: ``("drop", n)`` sends the
headers and ``n`` bytes of the body, then closes the connection; ``("status", code)`` answers
``code``. ``corrupt`` paths are served with other bytes than the listing's checksums describe.
Harness only: the server never leaves 127.0.0.1.

Example::

    with FakeHub() as hub:
        hub.dataset("zhwang/HPDv2", {"test.json": b"[]"})
        os.environ["HF_ENDPOINT"] = hub.url
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

COMMIT = "0123456789abcdef0123456789abcdef01234567"
TEXT = (".json", ".csv", ".txt", ".md")
RESOLVE = re.compile(r"^/datasets/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<path>.+)$")
TREE = re.compile(r"^/api/datasets/(?P<repo>[^/]+/[^/]+)/tree/(?P<rev>[^/]+)(?:/.*)?$")


def blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


class FakeHub:
    """The stand-in: ``dataset(repo, files)`` and ``raw[path] = bytes`` fill it."""

    def __init__(self) -> None:
        self.repos: dict[str, dict[str, bytes]] = {}
        self.raw: dict[str, bytes] = {}
        self.faults: dict[str, list[tuple[str, int]]] = {}
        self.corrupt: set[str] = set()
        self.requests: list[tuple[str, str, str | None]] = []
        self.body_bytes = 0
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeHub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def dataset(self, repo: str, files: dict[str, bytes]) -> None:
        """Serve ``files`` (path → bytes) as the dataset ``repo``."""
        self.repos[repo] = dict(files)

    def fault(self, path: str, kind: str, arg: int) -> None:
        """The next ``GET`` whose path ends with ``path`` fails this way (once)."""
        self.faults.setdefault(path, []).append((kind, arg))

    def gets(self, suffix: str) -> list[str | None]:
        """The Range headers of every GET of a path ending with ``suffix`` (None: no range)."""
        return [r for m, p, r in self.requests if m == "GET" and p.endswith(suffix)]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_HEAD(self) -> None:
                self._serve(head=True)

            def do_GET(self) -> None:
                self._serve(head=False)

            def _serve(self, head: bool) -> None:
                path = unquote(urlsplit(self.path).path)
                with hub.lock:
                    hub.requests.append((self.command, path, self.headers.get("Range")))
                if m := TREE.match(path):
                    return self._tree(m["repo"])
                if m := RESOLVE.match(path):
                    files = hub.repos.get(m["repo"], {})
                    if m["path"] not in files:
                        return self._status(404, {"X-Error-Code": "EntryNotFound"})
                    return self._file(path, m["path"], files[m["path"]], head, hub_file=True)
                if path in hub.raw:
                    return self._file(path, path, hub.raw[path], head, hub_file=False)
                return self._status(404)

            def _tree(self, repo: str) -> None:
                if repo not in hub.repos:
                    return self._status(404, {"X-Error-Code": "RepoNotFound"})
                rows = []
                for name, data in sorted(hub.repos[repo].items()):
                    row: dict[str, Any] = {
                        "type": "file", "oid": blob_id(data), "size": len(data), "path": name,
                    }  # fmt: skip
                    if not name.endswith(TEXT):
                        sha = hashlib.sha256(data).hexdigest()
                        row["lfs"] = {"oid": sha, "size": len(data), "pointerSize": 134}
                    rows.append(row)
                body = json.dumps(rows).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _file(self, url: str, name: str, data: bytes, head: bool, hub_file: bool) -> None:
                listed = data
                if name in hub.corrupt:
                    data = bytes(b ^ 0xFF for b in data[:8]) + data[8:]
                fault = None
                if not head:
                    with hub.lock:
                        queue = next((q for k, q in hub.faults.items() if url.endswith(k)), [])
                        fault = queue.pop(0) if queue else None
                if fault and fault[0] == "status":
                    return self._status(fault[1])
                start = 0
                rng = self.headers.get("Range")
                if rng and (m := re.match(r"bytes=(\d+)-$", rng)):
                    start = int(m[1])
                if start > len(data):
                    return self._status(416)
                body = data[start:]
                self.send_response(206 if start else 200)
                if start:
                    self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Accept-Ranges", "bytes")
                if hub_file:
                    self.send_header("X-Repo-Commit", COMMIT)
                    if name.endswith(TEXT):
                        self.send_header("ETag", f'"{blob_id(listed)}"')
                    else:
                        sha = hashlib.sha256(listed).hexdigest()
                        self.send_header("ETag", f'"{sha}"')
                        self.send_header("X-Linked-Etag", f'"{sha}"')
                        self.send_header("X-Linked-Size", str(len(listed)))
                self.end_headers()
                if head:
                    return
                if fault and fault[0] == "drop":
                    self.wfile.write(body[: fault[1]])
                    self.wfile.flush()
                    self.close_connection = True
                    with hub.lock:
                        hub.body_bytes += min(len(body), fault[1])
                    return
                self.wfile.write(body)
                with hub.lock:
                    hub.body_bytes += len(body)

            def _status(self, code: int, headers: dict[str, str] | None = None) -> None:
                body = json.dumps({"error": f"status {code}"}).encode()
                self.send_response(code)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler
