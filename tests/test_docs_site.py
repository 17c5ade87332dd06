"""The documentation site builds strictly and offline, and says only what the code says.

- ``mkdocs build --strict`` (broken links, anchors and API references fail the build) into a
  temporary folder, with no network: the theme's web fonts are off and no page may load
  anything from another site; the site is built once and the reference page renders every
  public name of ``judge`` (its ``__all__``);
- the JSON Schema files under ``docs/schemas/`` are what the pydantic models generate today;
- the README stays a front page (at most 250 lines) and nothing points outside the repository.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

import judge
from api.contract import contracts, rendered
from judge.domain.task import Task

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
OUTSIDE = re.compile(r"\.\./shared|DESIGN\.md|\]\(\.\./")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once for the tests of this file."""
    site = tmp_path_factory.mktemp("docs") / "site"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HTTP_", "HTTPS_"))}
    # a proxy that refuses everything: any fetch during the build fails it
    env.update(HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9",
               PYTHONPATH=str(REPO), NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return site


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_site_builds_strictly_and_offline(site: Path) -> None:
    pages = list(site.glob("*.html"))
    assert len(pages) >= 20, sorted(p.name for p in pages)
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert "fonts.googleapis" not in html and "fonts.gstatic" not in html, page.name
        assert not re.search(r'<(?:script|link)[^>]+(?:src|href)="https?://', html), page.name
    assert (site / "schemas" / "result.json").is_file()


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_reference_renders_every_public_name(site: Path) -> None:
    reference = (site / "reference.html").read_text(encoding="utf-8")
    rendered = set(re.findall(r'id="(judge\.[A-Za-z_]+)"', reference))
    missing = sorted(f"judge.{name}" for name in judge.__all__)
    missing = [name for name in missing if name not in rendered]
    assert not missing, f"docs/reference.md does not render {missing}: list them under members"
    front = {"score", "compare", "meta_eval", "Client", "AsyncClient", "Judge", "Result"}
    assert front <= set(judge.__all__), judge.__all__


def test_the_committed_schemas_are_up_to_date() -> None:
    committed = {p.name: p.read_text(encoding="utf-8") for p in (DOCS / "schemas").glob("*.json")}
    fresh = rendered()
    stale = sorted(n for n in fresh if committed.get(n) != fresh[n])
    extra = sorted(set(committed) - set(fresh))
    assert not stale and not extra, (
        f"docs/schemas is stale ({stale}) or has files no model makes ({extra}): "
        "run `python -m api.contract docs/schemas`"
    )


def test_a_checklist_item_may_leave_out_its_id() -> None:
    """Issue 38 item 9: the service assigns ``c<n>`` to a checklist item without an ``id``,
    so the committed schemas must accept one (they listed ``id`` as required)."""
    submission = json.loads((DOCS / "schemas" / "submission.json").read_text(encoding="utf-8"))
    task = json.loads((DOCS / "schemas" / "suite-task.json").read_text(encoding="utf-8"))
    item = {"primitive": "quantity", "image_check": "Are there exactly three apples?"}
    body = {"id": "s1", "prompt": "three apples", "images": ["a.png"],
            "task": {"id": "t1", "category": "CO", "brief": "three apples", "checklist": [item]}}
    assert not list(Draft202012Validator(submission).iter_errors(body))
    assert not list(Draft202012Validator(task).iter_errors(body["task"]))
    assert Task.model_validate(body["task"]).checklist[0].id == "c1"
    no_primitive = {**body["task"], "checklist": [{"image_check": "Three apples?"}]}
    assert list(Draft202012Validator(task).iter_errors(no_primitive))  # the rest still required


def test_the_schemas_describe_the_contracts() -> None:
    result = json.loads((DOCS / "schemas" / "result.json").read_text(encoding="utf-8"))
    assert {"status", "safety", "subjective", "objective"} <= set(result["properties"])
    batch = json.loads((DOCS / "schemas" / "batch-status.json").read_text(encoding="utf-8"))
    assert {"done", "failed", "progress", "total"} <= set(batch["properties"])
    assert {"result", "comparison-result", "edit-result", "probe-status"} <= set(contracts())


def test_the_readme_is_a_front_page() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, len(lines)


def test_nothing_points_outside_the_repository() -> None:
    found = [
        f"{p.relative_to(REPO)}:{n}: {line.strip()}"
        for p in [REPO / "README.md", *DOCS.glob("*.md")]
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
        if OUTSIDE.search(line)
    ]
    assert not found, "\n".join(found)


def test_the_openapi_page_lists_every_v1_route() -> None:
    """Issue 38: docs/openapi.md's route table omitted the campaign and label routes."""
    doc = json.loads((REPO / "docs" / "schemas" / "openapi.json").read_text(encoding="utf-8"))
    page = (REPO / "docs" / "openapi.md").read_text(encoding="utf-8")
    missing = [
        f"{method.upper()} {path}"
        for path, ops in doc["paths"].items()
        if path.startswith("/v1/")
        for method in ops
        if f"`{method.upper()} {path}`" not in page
    ]
    assert not missing, missing


def test_readme_and_index_lead_to_every_job() -> None:
    """Issue 38: the README's docs list and the index's "Find your job" table left out label
    campaigns, task suites from posts and the participant UI; a path in an example pointed to a
    README section that does not exist."""
    import yaml

    pages: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, str):
            pages.append(node)
        elif isinstance(node, dict):
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))["nav"])
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert [p for p in pages if p != "index.md" and f"(docs/{p})" not in readme] == []
    index = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    for page in ("campaigns.md", "tasks-from-posts.md", "study-ui.md"):
        assert f"]({page})" in index, page
    assert "one minute" not in index
    study = (REPO / "examples" / "study" / "study.toml").read_text(encoding="utf-8")
    assert "README" not in study and "docs/studies.md" in study


def test_the_python_examples_print_a_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38: the README's Python example printed ``scored None`` (a rate without a
    checklist); the README and the index now give a checklist, so a number is printed."""
    import contextlib
    import io

    monkeypatch.chdir(REPO)
    for page in (REPO / "README.md", REPO / "docs" / "index.md"):
        block = re.search(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
        assert block, page
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block.group(1), str(page), "exec"), {})
        last = out.getvalue().split()[-1]
        assert last != "None" and float(last) >= 0, (page.name, out.getvalue())
