"""The ``POST /v1/studies`` body for a suite file: its lines, plus every IM target image
(paths relative to the suite) as a ``data:`` URL under ``targets``.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> line = '{"id": "oe_1", "category": "OE", "brief": "A harbour."}'
    >>> _ = (d / "tasks.jsonl").write_text(line + "\\n")
    >>> body, lines = study_body(d / "tasks.jsonl", study_id="demo", name="Demo", participants=3)
    >>> body["participants"], lines
    (3, [1])
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eval.studies.suite import SuiteError, load_suite
from judge.io.data_urls import file_data_url


class SuiteFileError(ValueError):
    """A suite file that cannot be sent; the message names FILE:LINE."""


def study_body(
    suite: Path,
    *,
    study_id: str,
    name: str,
    participants: int | list[str],
    max_prompt_chars: int | None = None,
    instructions: str = "",
) -> tuple[dict[str, Any], list[int]]:
    """The registration body and, for each task, its line number in ``suite``.

    The suite is checked first (:func:`eval.studies.suite.load_suite`, targets included), so
    problems name ``FILE:LINE`` before anything is sent.
    """
    try:
        load_suite(suite)
    except SuiteError as exc:
        raise SuiteFileError(str(exc)) from None
    try:
        text = suite.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteFileError(f"{suite}: cannot read ({exc})") from None
    tasks: list[str] = []
    line_numbers: list[int] = []
    targets: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        tasks.append(line)
        line_numbers.append(number)
        try:
            ref = json.loads(line).get("target_image")
        except (json.JSONDecodeError, AttributeError):
            continue  # the service names the problem
        if isinstance(ref, str) and ref and not ref.startswith("data:") and ref not in targets:
            targets[ref] = _data_url(suite.parent / ref, f"{suite}:{number}: target_image")
    if not tasks:
        raise SuiteFileError(f"{suite}: no tasks (one JSON object per line)")
    body = _body(study_id, name, None, tasks, participants, targets, instructions, max_prompt_chars)
    return body, line_numbers


def edit_study_body(
    study: Path,
    *,
    study_id: str,
    name: str,
    participants: int | list[str],
    max_prompt_chars: int | None = None,
    instructions: str = "",
) -> tuple[dict[str, Any], list[int]]:
    """The registration body of an *edit* study's tasks (``kind: edit``): each task's request
    as the brief and its source picture as the image participants see (category ``IM``), so
    people write the instruction an editor gets. The second value numbers the tasks (1, 2, …).

    Example:
        >>> import tempfile, pathlib
        >>> from PIL import Image
        >>> d = pathlib.Path(tempfile.mkdtemp()); Image.new("RGB", (8, 8)).save(d / "a.png")
        >>> _ = (d / "t.csv").write_text("image,instruction\\na.png,Make the sky pink.\\n")
        >>> _ = (d / "s.toml").write_text('[study]\\nkind = "edit"\\nname = "s"\\n'
        ...     'tasks = "t.csv"\\n[[writers]]\\nid = "w"\\nkind = "as_written"\\n'
        ...     '[[editors]]\\nid = "e"\\nmodel = "builtin/editor"\\n')
        >>> body, _ = edit_study_body(d / "s.toml", study_id="x", name="X", participants=2)
        >>> body["kind"], body["tasks"][0]["brief"], list(body["targets"])
        ('edit', 'Make the sky pink.', ['a.png'])
    """
    from eval.studies.config import StudyError
    from eval.studies.edits.config import load_edit_study
    from eval.studies.edits.tasks import load_edit_tasks

    try:
        cfg = load_edit_study(study)
        tasks = load_edit_tasks(cfg.tasks_path)
    except (StudyError, SuiteError) as exc:
        raise SuiteFileError(str(exc)) from None
    if not tasks:
        raise SuiteFileError(f"{cfg.tasks_path}: no edit tasks in it")
    targets: dict[str, str] = {}
    rows = []
    for t in tasks:
        rows.append({"id": t.id, "category": "IM", "brief": t.request,
                     "target_image": t.source_image})  # fmt: skip
        if t.source_image not in targets:
            where = f"{cfg.tasks_path}: task {t.id}: source_image"
            targets[t.source_image] = _data_url(cfg.tasks_path.parent / t.source_image, where)
    limit = max_prompt_chars
    body = _body(study_id, name, "edit", rows, participants, targets, instructions, limit)
    return body, list(range(1, len(rows) + 1))


def _body(
    study_id: str,
    name: str,
    kind: str | None,
    tasks: list[Any],
    participants: int | list[str],
    targets: dict[str, str],
    instructions: str,
    max_prompt_chars: int | None,
) -> dict[str, Any]:
    """The registration body (``kind`` only for an edit study, the prompt limit when set)."""
    body: dict[str, Any] = {"id": study_id, "name": name}
    if kind is not None:
        body["kind"] = kind
    body.update(tasks=tasks, participants=participants, targets=targets, instructions=instructions)
    if max_prompt_chars is not None:
        body["max_prompt_chars"] = max_prompt_chars
    return body


def _data_url(path: Path, where: str) -> str:
    try:
        return file_data_url(path, "application/octet-stream")
    except OSError as exc:
        raise SuiteFileError(f"{where}: cannot read {path} ({exc.strerror})") from None
