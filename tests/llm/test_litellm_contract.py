"""What the judge takes from litellm beyond ``litellm.acompletion``, pinned name by name.

The direct route (:mod:`judge.llm.direct`) subclasses litellm's HTTP handler, uses its default
headers and its table of aiohttp errors, and reads a few module attributes and helpers;
batch pricing and image pricing call two of litellm's cost calculators. None of these is
litellm's documented API, so a litellm upgrade may move or change them without notice. Each
test here imports one of them from where the judge imports it and checks what the judge
relies on (a class and its methods' parameter names, a callable's parameters, a mapping's
entries, an environment variable litellm still reads); a failure says what moved and, when the
name is still somewhere in litellm, where it is now.

``make setup`` runs this file after installing the lock (the lock is what changes litellm),
and it is in the fast lane of ``make test`` (docs/testing.md).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import litellm
import pytest

REPO = Path(__file__).resolve().parents[2]
VERSION = getattr(litellm, "version", None) or importlib.metadata.version("litellm")
SOURCE = Path(litellm.__file__).parent

#: (module, name, where the judge uses it, parameter names the judge passes or relies on)
IMPORTED: list[tuple[str, str, str, tuple[str, ...]]] = [
    ("litellm.llms.custom_httpx.http_handler", "AsyncHTTPHandler", "judge/llm/direct/replay.py",
     ()),
    ("litellm.llms.custom_httpx.http_handler", "get_default_headers",
     "judge/llm/direct/replay.py", ()),
    ("litellm.llms.custom_httpx.aiohttp_transport", "AIOHTTP_EXC_MAP",
     "judge/llm/direct/transport.py", ()),
    ("litellm.cost_calculator", "batch_cost_calculator", "judge/llm/batch/provider.py",
     ("usage", "model")),
    ("litellm.cost_calculator", "default_image_cost_calculator", "eval/t2i/pricing.py",
     ("model", "custom_llm_provider", "quality", "n", "size")),
]  # fmt: skip

#: attributes of the ``litellm`` module the direct route reads (judge/llm/direct/routes.py,
#: replay.py) and the keywords it passes
ATTRIBUTES: list[tuple[str, tuple[str, ...]]] = [
    ("acompletion", ("model", "messages", "response_format")),
    ("cost_per_token", ("model", "custom_llm_provider", "prompt_tokens", "completion_tokens")),
    ("get_llm_provider", ("model", "api_base")),
    ("disable_aiohttp_transport", ()),
]

#: environment variables litellm must still read for the route's eligibility checks to mean
#: what they say (judge/llm/direct/routes.py, judge/llm/litellm_settings.py)
ENVIRONMENT = ["EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER", "DISABLE_AIOHTTP_TRANSPORT"]


def _where_now(name: str) -> str:
    """Where litellm defines ``name`` now (a class, function or module-level assignment)."""
    pattern = re.compile(rf"^(class|def|async def) {name}\b|^{name}\s*[:=]", re.MULTILINE)
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if name in text and pattern.search(text):
            found.append(".".join(path.relative_to(SOURCE.parent).with_suffix("").parts))
    return ", ".join(found[:5]) or "nowhere (removed)"


def _moved(what: str, user: str, detail: str) -> str:
    return (
        f"litellm {VERSION}: {what}, which {user} relies on, {detail}. The litellm pin in "
        "requirements.lock changed what the judge takes from litellm's internals: adapt "
        f"{user} (and this contract), or keep the previous litellm."
    )


def _load(module: str, name: str, user: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        where = _where_now(name)
        detail = f"cannot be imported ({exc}); now in: {where}"
        pytest.fail(_moved(f"{module}.{name}", user, detail))


def _check_parameters(fn: Callable[..., Any], names: tuple[str, ...], what: str, user: str) -> None:
    """Each of ``names`` is a named parameter of ``fn`` (not merely swallowed by ``**kwargs``)."""
    params = inspect.signature(fn).parameters
    missing = [n for n in names if n not in params]
    assert not missing, _moved(what, user, f"no longer takes {missing} (takes {list(params)})")


@pytest.mark.parametrize(("module", "name", "user", "params"), IMPORTED,
                         ids=[f"{m}.{n}" for m, n, _, _ in IMPORTED])  # fmt: skip
def test_each_imported_name_is_where_the_judge_imports_it(module, name, user, params) -> None:
    obj = _load(module, name, user)
    if params:
        assert callable(obj), _moved(f"{module}.{name}", user, "is no longer callable")
        _check_parameters(obj, params, f"{module}.{name}", user)


def test_the_http_handler_can_still_be_given_a_local_client() -> None:
    """replay.LocalClient subclasses AsyncHTTPHandler: ``__init__(timeout=None)`` must build
    its httpx client through the overridable ``create_client`` and keep it as ``.client``."""
    from judge.llm.direct.replay import LocalClient

    user = "judge/llm/direct/replay.py"
    handler = _load("litellm.llms.custom_httpx.http_handler", "AsyncHTTPHandler", user)
    what = "AsyncHTTPHandler"
    assert inspect.isclass(handler), _moved(what, user, "is no longer a class")
    _check_parameters(handler.__init__, ("timeout",), f"{what}.__init__", user)
    assert callable(getattr(handler, "create_client", None)), _moved(
        what, user, "has no create_client method to override"
    )
    client = LocalClient(lambda request: httpx.Response(204, request=request))
    assert isinstance(getattr(client, "client", None), httpx.AsyncClient), _moved(
        what, user, "no longer keeps the client create_client made as .client"
    )
    headers = _load("litellm.llms.custom_httpx.http_handler", "get_default_headers", user)()
    assert isinstance(headers, Mapping) and "User-Agent" in headers, _moved(
        "get_default_headers()", user, f"returns {headers!r}, no User-Agent"
    )
    assert client.client.headers["User-Agent"] == headers["User-Agent"]


def test_the_aiohttp_error_table_names_the_failures_the_route_meets() -> None:
    """transport.litellm_error maps aiohttp failures through litellm's table; the route
    retries the httpx errors a refused or reset connection maps to."""
    user = "judge/llm/direct/transport.py"
    table = _load("litellm.llms.custom_httpx.aiohttp_transport", "AIOHTTP_EXC_MAP", user)
    what = "AIOHTTP_EXC_MAP"
    assert isinstance(table, Mapping), _moved(what, user, f"is a {type(table).__name__} now")
    for source, target in table.items():
        ok = issubclass(source, BaseException) and issubclass(target, Exception)
        assert ok, _moved(what, user, f"maps {source!r} to {target!r}, not to an exception")
    from judge.llm.direct.transport import litellm_error

    key = aiohttp.client_reqrep.ConnectionKey("h", 1, False, True, None, None, None)
    refused = aiohttp.ClientConnectorError(key, OSError(111, "refused"))
    cases = [(refused, httpx.ConnectError), (aiohttp.ServerDisconnectedError(), httpx.ReadError),
             (TimeoutError(), httpx.TimeoutException)]  # fmt: skip
    for exc, expected in cases:
        got = litellm_error(exc)
        names = f"{type(exc).__name__} to {type(got).__name__}, not {expected.__name__}"
        assert isinstance(got, expected), _moved(what, user, f"maps {names}")


@pytest.mark.parametrize(("name", "params"), ATTRIBUTES, ids=[a for a, _ in ATTRIBUTES])
def test_each_module_attribute_the_route_reads(name: str, params: tuple[str, ...]) -> None:
    user = "judge/llm/direct/routes.py"
    assert hasattr(litellm, name), _moved(f"litellm.{name}", user, "is gone")
    value = getattr(litellm, name)
    if params:
        _check_parameters(value, params, f"litellm.{name}", user)
    else:
        assert isinstance(value, bool), _moved(f"litellm.{name}", user, f"is {value!r}")


def test_prices_and_providers_come_back_in_the_shape_the_route_unpacks() -> None:
    user = "judge/llm/direct/routes.py"
    parts = litellm.cost_per_token(model="gpt-4o", custom_llm_provider="openai",
                                   prompt_tokens=10, completion_tokens=5)  # fmt: skip
    assert isinstance(parts, tuple) and len(parts) == 2, _moved(
        "litellm.cost_per_token", user, f"returns {parts!r}, not (prompt, completion) costs"
    )
    assert sum(parts) > 0
    found = litellm.get_llm_provider("hosted_vllm/m", api_base="http://127.0.0.1:9/v1")
    assert isinstance(found, tuple) and len(found) == 4 and found[:2] == ("m", "hosted_vllm"), (
        _moved("litellm.get_llm_provider", user, f"returns {found!r}")
    )


def test_the_response_keeps_its_cost_where_calibration_reads_it() -> None:
    """routes._calibrate reads ``resp._hidden_params["response_cost"]`` to know whether
    litellm prices the model."""
    from litellm.types.utils import ModelResponse

    resp = ModelResponse()
    hidden = getattr(resp, "_hidden_params", None)
    assert isinstance(hidden, dict), _moved(
        "ModelResponse._hidden_params", "judge/llm/direct/routes.py", f"is {hidden!r}"
    )


@pytest.mark.parametrize("variable", ENVIRONMENT)
def test_litellm_still_reads_the_switches_the_route_checks(variable: str) -> None:
    readers = [
        p for p in SOURCE.rglob("*.py")
        if variable in p.read_text(encoding="utf-8", errors="replace")
    ]  # fmt: skip
    assert readers, _moved(
        f"the environment variable {variable}", "judge/llm/direct/routes.py",
        "is no longer read anywhere in litellm, so the route's eligibility check means nothing",
    )  # fmt: skip


def test_every_import_from_litellm_s_internals_is_in_this_contract() -> None:
    """A new ``from litellm.<module> import <name>`` in the product must be added above."""
    pinned = {(m, n) for m, n, _, _ in IMPORTED}
    found = set()
    for package in ("judge", "skills", "memory", "api", "eval"):
        for path in (REPO / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("litellm."):
                    found |= {(node.module, a.name) for a in node.names}
                elif isinstance(node, ast.Import):
                    found |= {(a.name, "*") for a in node.names if a.name.startswith("litellm.")}
    assert found <= pinned, f"imports from litellm's internals not pinned here: {found - pinned}"
