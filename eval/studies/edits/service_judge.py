"""An edit study judged by a running service (``judge study run EDIT_STUDY.toml --url URL``).

Every request (an ``edit`` submission, an ``edit_compare`` of two edits) goes to
``POST {url}/v1/score`` in its mode's wrapped form — ``{"mode": "edit", "edit": {...},
"options": {...}}`` — with the local images inlined as ``data:`` URLs, through
:class:`judge.client.AsyncClient` (``JUDGE_SERVICE_KEY`` as bearer key, retries with backoff
on 429/502/503/504). The study's ``[judge.options]`` are engine settings; those a service
client may set are sent under each mode's option names (``edit_samples`` → ``samples``,
``edit_success_threshold`` → ``success_threshold``, ``compare_allow_tie`` → ``allow_tie``);
the service's own settings decide the rest (its judge model, retrieval, …).

Example::

    client = EditServiceJudge("http://127.0.0.1:8000", options={"edit_samples": 1})
    result = await client.score({"mode": "edit", ...}, base_dir=out)
    await client.aclose()
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval.kit.client import ServiceJudge
from judge.client import inline_request
from judge.modes import Mode, get_mode
from judge.modes.edit.options import RENAMES

SETTING_TO_OPTION = {setting: option for option, setting in RENAMES.items()} | {
    "compare_allow_tie": "allow_tie"
}
"""Engine setting → the option name a service client uses for it."""


def mode_options(mode: Mode, settings: dict[str, Any]) -> dict[str, Any]:
    """The settings among ``settings`` that ``mode``'s clients may set, by option name.

    Example:
        >>> mode_options(get_mode("edit"), {"edit_samples": 2, "retrieval": "none"})
        {'samples': 2}
    """
    fields = mode.options_model.model_fields
    named = {SETTING_TO_OPTION.get(k, k): v for k, v in settings.items()}
    return {k: v for k, v in named.items() if k in fields}


class EditServiceJudge(ServiceJudge):
    """A :class:`eval.kit.client.ServiceJudge` for edit studies: the same calls, retries,
    errors and typed results; only the body differs (each mode's wrapped form, the study's
    settings under that mode's option names)."""

    def __init__(
        self, url: str, *, options: dict[str, Any] | None = None, timeout_s: float = 600.0
    ):
        super().__init__(url, timeout_s=timeout_s)
        self.settings = dict(options or {})

    def body(
        self, submission: dict[str, Any], base_dir: Path | None, options: dict[str, Any]
    ) -> dict[str, Any]:
        """The wrapped request of ``submission``'s mode, its images inlined."""
        mode = get_mode(submission.get("mode", "edit"))
        inlined = inline_request(submission, base_dir)
        request = {k: v for k, v in inlined.items() if k != "mode"}
        return {"mode": mode.name, mode.wrapper_key: request,
                "options": mode_options(mode, self.settings)}  # fmt: skip
