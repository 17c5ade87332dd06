"""A small HTTP client for the service's study routes, with errors that say what to do.

Example::

    c = StudyClient("http://127.0.0.1:8080", admin_key=os.environ.get("JUDGE_ADMIN_KEY"))
    rows = c.export("demo")          # [{"task_id", "prompt", "participant", "submitted_at"}]
"""

from __future__ import annotations

import json
from typing import Any

import httpx


class StudyClientError(RuntimeError):
    """The service refused or could not be reached; the message names why."""

    def __init__(self, message: str, *, bad_input: bool):
        super().__init__(message)
        self.bad_input = bad_input


class StudyClient:
    """Admin calls to ``/v1/studies``."""

    def __init__(self, url: str, admin_key: str | None = None, timeout: float = 60.0):
        if not url.startswith(("http://", "https://")):
            raise StudyClientError(f"--url {url!r}: expected http://HOST:PORT", bad_input=True)
        headers = {"Authorization": f"Bearer {admin_key}"} if admin_key else {}
        self.http = httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout)

    def _call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            r = self.http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise StudyClientError(
                f"cannot reach {self.http.base_url} ({exc}); is `judge serve` running?",
                bad_input=False,
            ) from None
        if r.status_code >= 400:
            try:
                err = r.json()["error"]
                why = f"{err.get('field') or ''}: {err['message']}".lstrip(": ")
            except (ValueError, KeyError, TypeError):
                why = r.text[:300]
            hint = (
                " (set the admin key with --admin-key-env)" if r.status_code in (401, 403) else ""
            )
            raise StudyClientError(
                f"HTTP {r.status_code}: {why}{hint}", bad_input=r.status_code < 500
            )
        return r

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """Register a study; the answer lists the participant codes."""
        return self._call("POST", "/v1/studies", json=body).json()

    def export(self, study: str, *, history: bool = False) -> list[dict[str, Any]]:
        """Every stored prompt of a study (latest versions unless ``history``)."""
        params = {"history": "true"} if history else {}
        r = self._call("GET", f"/v1/studies/{study}/prompts", params=params)
        return [json.loads(line) for line in r.text.splitlines() if line.strip()]

    def close(self) -> None:
        self.http.close()
