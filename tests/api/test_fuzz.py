"""Property-based fuzzing of the live service from its own OpenAPI schema (schemathesis):
whatever a client sends, no operation answers with a 5xx.

Every operation of ``/openapi.json`` gets the schema's explicit examples plus cases drawn
from schema-conforming (positive) and schema-violating (negative) generation, sent over
real HTTP to the service on loopback. The service runs the local backend (no model), so the
few requests valid enough to be scored stay cheap. Hypothesis is derandomized, so a run is
reproducible. (Driven by hand rather than through ``schemathesis.pytest.from_fixture``,
whose lazy loader does not work with pytest 9: ``'Function' object has no attribute
'_nodeid'``.)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from api.judging.models import ScoreRequest
from judge.domain.submission import Submission
from tests.api.conftest import LiveService, copy_shipped_memory, live_service

pytestmark = pytest.mark.slow  # minutes of work: make test-fast leaves it out (docs/testing.md)

MAX_EXAMPLES = 50


@pytest.fixture(scope="module")
def fuzz_service(module_tmp: Path) -> Iterator[LiveService]:
    memories = module_tmp / "memories"
    memories.mkdir()
    copy_shipped_memory("avt-image", memories)
    env = {"JUDGE_BACKEND": "local", "JUDGE_MEMORY_DIR": str(memories)}
    with live_service(env, module_tmp / "data") as svc:
        yield svc


@pytest.fixture(scope="module")
def api_schema(fuzz_service: LiveService) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_url(f"{fuzz_service.base_url}/openapi.json")


@pytest.fixture(scope="module")
def documented_score_schema(fuzz_service: LiveService) -> schemathesis.BaseSchema:
    """The live schema with ``POST /v1/score``'s body described as what the route accepts
    (a Submission, or ``{"submission", "options"}``), so the fuzzer reaches past the
    top-level shape. The served schema leaves that body untyped."""
    with fuzz_service.client(timeout=10) as c:
        raw = c.get("/openapi.json").json()
    components = raw.setdefault("components", {}).setdefault("schemas", {})
    for model in (Submission, ScoreRequest):
        js = model.model_json_schema(ref_template="#/components/schemas/{model}")
        components.update(js.pop("$defs", {}))
        components[model.__name__] = js
    media = raw["paths"]["/v1/score"]["post"]["requestBody"]["content"]["application/json"]
    media["schema"] = {
        "oneOf": [
            {"$ref": "#/components/schemas/Submission"},
            {"$ref": "#/components/schemas/ScoreRequest"},
        ]
    }
    return schemathesis.openapi.from_dict(raw)


def operations(schema: schemathesis.BaseSchema) -> list:
    found = []
    for result in schema.get_all_operations():
        found.append(result.ok())  # an unusable schema entry fails the test here
    return found


def fuzz_operation(operation: object, base_url: str) -> str | None:
    """Run one operation's cases; on a failed check, the shrunk failing case (a curl
    command to reproduce it), else None."""
    strategy = st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),  # type: ignore[attr-defined]
        operation.as_strategy(GenerationMode.NEGATIVE),  # type: ignore[attr-defined]
        *operation.get_strategies_from_examples(),  # type: ignore[attr-defined]
    )

    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        report_multiple_bugs=False,
    )
    @given(case=strategy)
    def run(case: schemathesis.Case) -> None:
        response = case.call(base_url=base_url, timeout=30)
        case.validate_response(response, checks=[not_a_server_error])

    try:
        run()
    except (Exception, BaseExceptionGroup) as exc:  # the check failed
        return str(exc)
    return None


def test_no_operation_answers_with_a_server_error(
    fuzz_service: LiveService, api_schema: schemathesis.BaseSchema
) -> None:
    ops = operations(api_schema)
    labels = {f"{op.method.upper()} {op.path}" for op in ops}
    assert {"POST /v1/score", "GET /v1/skills", "GET /healthz"} <= labels
    report = []
    for op in ops:
        failure = fuzz_operation(op, fuzz_service.base_url)
        if failure:
            report.append(f"{op.method.upper()} {op.path}: {failure}")
    assert not report, "\n".join(report)


def test_score_with_its_documented_body_never_answers_with_a_server_error(
    fuzz_service: LiveService, documented_score_schema: schemathesis.BaseSchema
) -> None:
    (op,) = [
        op
        for op in operations(documented_score_schema)
        if (op.method.upper(), op.path) == ("POST", "/v1/score")
    ]
    failure = fuzz_operation(op, fuzz_service.base_url)
    assert failure is None, failure


def test_the_service_is_still_healthy_after_fuzzing(fuzz_service: LiveService) -> None:
    with fuzz_service.client(timeout=10) as c:
        assert c.get("/healthz").status_code == 200
        assert c.get("/readyz").status_code == 200
