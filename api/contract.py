"""The service's public contracts as JSON Schema files, generated from the pydantic models.

``docs/schemas/`` holds one file per contract; a test regenerates them and fails when the
committed files are stale. Run after changing a model:

    python -m api.contract docs/schemas

Example:
    >>> sorted(contracts())[:3]
    ['batch-created', 'batch-status', 'comparison']
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def contracts() -> dict[str, type[BaseModel]]:
    """Contract name → the pydantic model that defines it."""
    from api.core.errors import ErrorBody
    from api.jobs.store import BatchCreated, BatchInfo
    from api.probes.routes import OverrideIn, ProbeStatus
    from api.studies.models import StudyCreate, StudyInfo
    from eval.probing.params import ProbeParams
    from eval.probing.tree import ProbeNode
    from eval.studies.config import StudyConfig
    from eval.studies.suite import SuiteTask
    from judge.domain.result import Result
    from judge.domain.submission import Submission
    from judge.modes.compare.request import Comparison
    from judge.modes.compare.result import ComparisonResult
    from judge.modes.edit.request import EditSubmission
    from judge.modes.edit.result import EditResult
    from judge.modes.edit_compare.request import EditComparison
    from judge.modes.edit_compare.result import EditComparisonResult

    return {
        "submission": Submission,
        "result": Result,
        "comparison": Comparison,
        "comparison-result": ComparisonResult,
        "edit-submission": EditSubmission,
        "edit-result": EditResult,
        "edit-comparison": EditComparison,
        "edit-comparison-result": EditComparisonResult,
        "batch-created": BatchCreated,
        "batch-status": BatchInfo,
        "error": ErrorBody,
        "probe-request": ProbeParams,
        "probe-status": ProbeStatus,
        "probe-node": ProbeNode,
        "probe-override": OverrideIn,
        "study-file": StudyConfig,
        "suite-task": SuiteTask,
        "participant-study": StudyCreate,
        "participant-study-status": StudyInfo,
    }


def schema_text(model: type[BaseModel]) -> str:
    """The model's JSON Schema, stably formatted."""
    # validation mode: the Result models serialise through a wrap serializer (keeping nulls),
    # which JSON Schema cannot see through; the fields are the same either way
    schema: dict[str, Any] = model.model_json_schema(mode="validation")
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def openapi_text() -> str:
    """The service's OpenAPI document (every route, request and answer), stably formatted."""
    from api.app import create_app

    doc = create_app().openapi()
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def rendered() -> dict[str, str]:
    """File name → text of every generated contract file, OpenAPI included."""
    files = {f"{name}.json": schema_text(model) for name, model in contracts().items()}
    files["openapi.json"] = openapi_text()
    return files


def write_all(folder: Path) -> list[Path]:
    """Write every contract's schema to ``folder/<name>.json``; returns the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in rendered().items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m api.contract OUT_DIR", file=sys.stderr)
        return 2
    for path in write_all(Path(args[0])):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
