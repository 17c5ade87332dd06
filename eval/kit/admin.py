"""The one admin client of the service: studies, campaigns and memories, for the workflows.

Built on :class:`judge.transport.Transport` (the transport of :class:`judge.Client`: retries
with backoff on 429/502/503/504 and dropped connections, one :class:`~judge.transport.
ServiceError` for every refusal). The admin key is sent as given: it never falls back to
``JUDGE_SERVICE_KEY``. :func:`admin_key` reads it from the environment the way every
``--admin-key-env`` option does; :func:`refusal` turns a :class:`ServiceError` into the
message and exit code a command prints (docs/campaigns.md, docs/studies.md).

Example::

    from eval.kit.admin import AdminClient, admin_key

    with AdminClient("http://127.0.0.1:8080", admin_key(None)) as admin:
        rows = admin.study_prompts("pilot")      # [{"task_id", "prompt", "participant", ...}]
        record = admin.campaign("pilot-pref")    # {"id", "status", "labels", ...}
"""

from __future__ import annotations

import json
import os
from typing import Any

from judge.transport import ServiceError, Transport

DEFAULT_KEY_ENV = "JUDGE_ADMIN_KEY"
"""The variable an admin key is read from when ``--admin-key-env`` is not given."""


def admin_key(env: str | None) -> str | None:
    """The key in the variable ``env`` (an error when unset), else ``$JUDGE_ADMIN_KEY`` or
    None (no key is sent).

    >>> admin_key(None) is None or isinstance(admin_key(None), str)
    True
    """
    if env:
        key = os.environ.get(env)
        if not key:
            raise ValueError(f"--admin-key-env: the variable {env} is not set")
        return key
    return os.environ.get(DEFAULT_KEY_ENV) or None


def refusal(exc: ServiceError, url: str) -> tuple[str, int]:
    """What a command prints for ``exc``, and its exit code: 2 when the request was wrong
    (4xx), 1 when the service failed or could not be reached (the transport's message
    already names the address and what to check, so it is printed as it is)."""
    if exc.status == 0:
        return exc.message, 1
    why = f"{exc.field or ''}: {exc.message}".lstrip(": ")
    hint = " (set the admin key with --admin-key-env)" if exc.status in (401, 403) else ""
    return f"HTTP {exc.status}: {why}{hint}", 2 if exc.status < 500 else 1


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


class AdminClient:
    """Admin calls to ``/v1/studies``, ``/v1/campaigns`` and ``/v1/memories``; every refusal
    raises :class:`~judge.transport.ServiceError` (format it with :func:`refusal`)."""

    def __init__(
        self, url: str, key: str | None = None, *, retries: int = 2, timeout_s: float = 60.0
    ):
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"--url {url!r}: expected http://HOST:PORT")
        self.url = url.rstrip("/")
        self.http = Transport(url, key, retries=retries, timeout_s=timeout_s)

    def __enter__(self) -> AdminClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self.http.close()

    # studies
    def create_study(self, body: dict[str, Any]) -> dict[str, Any]:
        """Register a study; the answer lists the participant codes."""
        return self.http.request("POST", "/v1/studies", json=body).json()

    def study_prompts(self, study: str, *, history: bool = False) -> list[dict[str, Any]]:
        """Every stored prompt of a study (latest versions unless ``history``)."""
        params = {"history": "true"} if history else {}
        return _lines(self.http.request("GET", f"/v1/studies/{study}/prompts", params=params).text)

    # campaigns
    def create_campaign(self, body: dict[str, Any]) -> dict[str, Any]:
        """Register a campaign; the answer counts its items and planned labels."""
        return self.http.request("POST", "/v1/campaigns", json=body).json()

    def invite(
        self, campaign: str, count: int | None = None, names: list[str] | None = None
    ) -> list[dict[str, Any]]:
        """Issue ``count`` invitations, or one per name in ``names`` (a name invited before
        gets a new link): ``{"annotator", "url", "token"}`` each."""
        path = f"/v1/campaigns/{campaign}/invitations"
        body: dict[str, Any] = {"names": names} if names else {"count": count}
        return self.http.request("POST", path, json=body).json()["invitations"]

    def revoke(self, campaign: str, names: list[str]) -> list[str]:
        """End the named annotators' links; the names revoked."""
        path = f"/v1/campaigns/{campaign}/invitations/revoke"
        return self.http.request("POST", path, json={"names": names}).json()["revoked"]

    def campaign(self, campaign: str) -> dict[str, Any]:
        """The campaign's record and progress."""
        return self.http.request("GET", f"/v1/campaigns/{campaign}").json()

    def close_campaign(self, campaign: str) -> None:
        """Stop serving new tasks."""
        self.http.request("POST", f"/v1/campaigns/{campaign}/status", json={"status": "closed"})

    def reservations(self, campaign: str) -> dict[str, Any]:
        """The campaign's pending tasks with their leases, and the counts of expired and
        released ones."""
        return self.http.request("GET", f"/v1/campaigns/{campaign}/reservations").json()

    def release(self, campaign: str, annotators: list[str] | None) -> list[str]:
        """Release the named annotators' reservations (None: every expired one); the
        annotators released."""
        body = {"annotators": annotators} if annotators else {"expired": True}
        path = f"/v1/campaigns/{campaign}/reservations/release"
        return self.http.request("POST", path, json=body).json()["released"]

    def campaign_export(self, campaign: str, what: str, fmt: str | None = None) -> str:
        """The ``votes`` or ``ratings`` export as text (JSONL unless ``fmt``: ``csv`` or
        ``edit-ratings``)."""
        params = {"format": fmt} if fmt else {}
        return self.http.request("GET", f"/v1/campaigns/{campaign}/{what}", params=params).text

    def campaign_rows(self, campaign: str, what: str) -> list[dict[str, Any]]:
        """The ``votes`` or ``ratings`` export, one dict a row."""
        return _lines(self.campaign_export(campaign, what))

    def campaign_image(self, campaign: str, key: str) -> bytes:
        """The bytes of one of the campaign's images."""
        return self.http.request("GET", f"/v1/campaigns/{campaign}/images/{key}").content

    def campaign_report(self, campaign: str, *, bootstrap: int = 1000) -> dict[str, Any]:
        """The campaign report (agreement, annotators, progress)."""
        path = f"/v1/campaigns/{campaign}/report"
        return self.http.request("GET", path, params={"bootstrap": bootstrap}).json()

    # memories
    def add_exemplars(self, memory: str, body: dict[str, Any]) -> dict[str, Any]:
        """Add exemplars to a memory (created when new); the answer has its version and
        count."""
        return self.http.request("POST", f"/v1/memories/{memory}/exemplars", json=body).json()
