"""The README and the docs, walked as a new user would: every ``sh`` and ``python`` block runs
as written.

The pages are README.md, then every page of the docs site in the order of ``mkdocs.yml``'s
navigation (pages that build on earlier ones, like the service before the participant pages,
come later). Each fenced ``sh`` block runs in ``bash -eo pipefail`` and each ``python`` block in
a fresh interpreter, from the repository root, in order, with:

- ``.venv/bin/judge`` mapped to this interpreter (``python -m judge.cli.main``), and
  ``make run`` run through the Makefile with ``BIN`` pointing there (nothing is installed);
- a temporary ``HOME`` (so the user data folder, ``~/.local/share/t2i-judge``, is fresh) and
  no ``JUDGE_*`` data variables, so the defaults are what is tested;
- the loopback fake provider as ``JUDGE_API_BASE`` for blocks that name a model;
- a free port instead of ``8080``; a block starting ``judge serve`` runs in the background
  until the walk ends (the next blocks wait for ``/readyz``).

The walk runs as a few *chains* of pages (``CHAINS``), each a test of its own
(``tests/docs/test_walk_<chain>.py``, a file each, since a parallel run hands whole files to
its workers) with its own ``HOME``, fake provider and port, so that the workers walk them at
the same time; within a chain the pages run in navigation order, so a page may build on the pages
before it in its chain (the memories page before meta-evaluation, the service before the
participant pages). Every walked page belongs to exactly one chain.

A block can be excluded only by a visible marker on the page just before it:
``<!-- readme-test: skip (reason) -->``, or shortened with
``<!-- readme-test: limit N (reason) -->`` (``--limit N`` on every ``judge meta-eval``).
Afterwards ``git status --porcelain`` must be what it was: following the docs must not
dirty the checkout.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import yaml

from memory.exemplar import parse_lines
from tests.fakes.provider import FakeProvider

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
MAX_SKIPPED = 3
FENCE = re.compile(
    r"(?:<!--\s*readme-test:\s*(?P<directive>[^>]*?)\s*-->\s*\n)?"
    r"^(?P<indent>[ ]*)```(?P<lang>[\w-]*)\n(?P<body>.*?)^(?P=indent)```",
    re.S | re.M,
)
DIRECTIVE = re.compile(r"^(?P<verb>skip|limit)\s*(?P<arg>\d+)?\s*\((?P<reason>[^)]+)\)$")
PORT = "8080"


@dataclass
class Block:
    """One fenced block of a page."""

    line: int
    lang: str
    body: str
    directive: str | None
    page: str = "README.md"

    @property
    def where(self) -> str:
        return f"{self.page} line {self.line}"

    def parsed(self) -> tuple[str, int | None, str] | None:
        """(verb, N, reason) of the marker, or None; a malformed marker fails the test."""
        if not self.directive:
            return None
        m = DIRECTIVE.match(self.directive)
        assert m, f"{self.where}: bad marker {self.directive!r}"
        return m["verb"], int(m["arg"]) if m["arg"] else None, m["reason"].strip()


def blocks(text: str, page: str = "README.md") -> list[Block]:
    """Every fenced block with its line number, language and marker."""
    return [
        Block(text.count("\n", 0, m.start("body")), m["lang"], m["body"], m["directive"], page)
        for m in FENCE.finditer(text)
    ]


def nav_pages(nav: object) -> list[str]:
    """The markdown pages of an mkdocs ``nav``, in order."""
    if isinstance(nav, str):
        return [nav] if nav.endswith(".md") else []
    if isinstance(nav, list):
        return [p for item in nav for p in nav_pages(item)]
    if isinstance(nav, dict):
        return [p for value in nav.values() for p in nav_pages(value)]
    return []


WALKED_ELSEWHERE = {
    "campaigns.md": "tests/campaigns/test_campaign_cli.py",
    "faces.md": "tests/metrics/test_faces_eval.py",
    "tasks-from-posts.md": "tests/evidence/test_docs.py",
    "edit-tasks.md": "tests/evidence/test_docs.py",
    "security.md": "tests/api/test_security_doc.py",
    "probing-service.md": "tests/api/test_docs_probing_service.py",
    "throughput.md": "tests/api/test_load_bench.py",
    "extending.md": "tests/docs/test_extending_page.py",
}
"""Pages whose examples need their own set-up (a service with keys, namespaces, a scripted
fake): each is run by the test named here instead of by this walk."""


CHAINS: dict[str, list[str]] = {
    "start": [
        "README.md", "index.md", "quickstart.md", "python.md", "scoring.md", "compare.md",
        "edit.md", "skills.md", "local-backend.md", "providers.md", "confidence.md",
    ],
    "evaluate": [
        "memories.md", "meta-eval.md", "public-sets.md", "compare-metrics.md", "leaderboards.md",
        "hybrid-leaderboards.md", "trust.md", "tasks.md",
        "probing.md",
    ],
    "service": [
        "studies.md", "edit-studies.md", "service.md", "study-ui.md", "openapi.md", "reference.md",
        "benchmarks.md", "design.md", "research-notes.md", "configuration.md",
    ],
}  # fmt: skip
"""The walk's chains: independent groups of pages (a page builds only on earlier pages of its
own chain). A page missing here fails ``test_every_docs_page_is_in_the_walk``; a name here that
is not a page is allowed (a page yet to come), so the chains can be written before the page."""


def nav_docs() -> list[Path]:
    """The docs site's pages in navigation order."""
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    docs = REPO / config.get("docs_dir", "docs")
    return [docs / p for p in nav_pages(config["nav"])]


def pages() -> list[Path]:
    """README.md, then the docs site's pages in navigation order (those walked elsewhere out)."""
    return [README, *(p for p in nav_docs() if p.name not in WALKED_ELSEWHERE)]


def walk_blocks(chain: str | None = None) -> list[Block]:
    """Every block of every page (of one chain), in walking order."""
    return [
        b
        for page in pages()
        if chain is None or page.name in CHAINS[chain]
        for b in blocks(page.read_text(encoding="utf-8"), str(page.relative_to(REPO)))
    ]


def test_every_docs_page_is_in_the_walk() -> None:
    """A page left out of the navigation would be left out of the walk too."""
    in_nav = {p.name for p in nav_docs()}
    on_disk = {p.name for p in (REPO / "docs").glob("*.md")}
    assert on_disk <= in_nav, f"pages not in mkdocs.yml's nav: {sorted(on_disk - in_nav)}"
    for page, test in WALKED_ELSEWHERE.items():
        assert (REPO / "docs" / page).is_file(), page
        assert (REPO / test).is_file(), f"{page} is walked by {test}, which is missing"
    chained = [name for names in CHAINS.values() for name in names]
    assert len(chained) == len(set(chained)), "a page is in two chains"
    walked = {p.name for p in pages()}
    assert walked <= set(chained), f"pages in no chain of CHAINS: {sorted(walked - set(chained))}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def git_status() -> str:
    return subprocess.run(
        ["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout


@contextmanager
def walk_env(tmp: Path) -> Iterator[dict[str, str]]:
    """The walk's environment in the fresh folder ``tmp``, with its own fake provider."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    (tmp / "tmp").mkdir()  # the README's ${TMPDIR:-/tmp} outputs: fresh for every walk
    judge = bin_dir / "judge"
    judge.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m judge.cli.main "$@"\n')
    judge.chmod(0o755)
    (bin_dir / ".setup-stamp").touch()  # newer than the pins: `make run` installs nothing
    cache = tmp / "cache"  # a private cache: the user's can neither help nor hide anything
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("JUDGE_", "XDG_")) and k not in ("REDIS_URL", "PYTHONPATH")
    }
    with FakeProvider(latency=0.0) as provider:
        env.update(
            HOME=str(tmp / "home"),
            TMPDIR=str(tmp / "tmp"),
            PYTHONPATH=str(REPO),
            JUDGE_CACHE_DIR=str(cache),
            JUDGE_API_BASE=provider.base_url,
            JUDGE_API_KEY="readme-walk",
            README_WALK_BIN=str(bin_dir),
            LITELLM_LOCAL_MODEL_COST_MAP="True",
            HF_HUB_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
        )
        yield env


def as_written(body: str, env: dict[str, str], port: str, limit: int | None) -> str:
    """The block with only the documented substitutions applied."""
    bin_dir = env["README_WALK_BIN"]
    text = body.replace(".venv/bin/judge", f"{bin_dir}/judge").replace(PORT, port)
    text = text.replace(".venv/bin/python", shlex.quote(sys.executable))
    text = re.sub(
        r"^make run\b", f"make run BIN={bin_dir} STAMP={bin_dir}/.setup-stamp", text, flags=re.M
    )
    if limit is not None:
        text = text.replace("\\\n", " ")
        text = re.sub(r"^(.*judge meta-eval\b.*)$", rf"\1 --limit {limit}", text, flags=re.M)
    return text


def wait_ready(url: str, proc: subprocess.Popen, timeout_s: float = 180.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"judge serve exited: {proc.stderr.read()[-3000:]}"  # type: ignore[union-attr]
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise AssertionError("judge serve did not become ready")


def test_readme_exemplar_example_lines_are_valid_jsonl() -> None:
    """The JSONL example can be pasted as is: one valid exemplar per line."""
    examples = [b for b in walk_blocks() if b.lang == "json" and '"modality"' in b.body]
    assert examples, "the docs lost their exemplar example"
    for b in examples:
        records = parse_lines(b.body.splitlines(), b.where)
        assert len(records) == len(b.body.strip().splitlines())


def walk(chain: str, walk_env: dict[str, str]) -> None:
    """Run every ``sh`` and ``python`` block of the chain's pages, in order, as written; the
    tests live in ``tests/docs/test_walk_<chain>.py`` (a file each, so parallel workers
    take them separately)."""
    before = git_status()
    port = str(free_port())
    server: subprocess.Popen | None = None
    ran, skipped = [], []
    try:
        for b in walk_blocks(chain):
            if b.lang not in ("sh", "python"):
                continue
            marker = b.parsed()
            if marker and marker[0] == "skip":
                skipped.append((b.where, marker[2]))
                continue
            if b.lang == "python":
                run_python(b, walk_env, port)
                ran.append(b.where)
                continue
            script = as_written(b.body, walk_env, port, marker[1] if marker else None)
            if script.lstrip().startswith(f"{walk_env['README_WALK_BIN']}/judge serve"):
                assert server is None, "two `judge serve` blocks"
                server = subprocess.Popen(
                    ["bash", "-c", f"exec {script.strip().splitlines()[0]}"],
                    cwd=REPO,
                    env=walk_env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                    start_new_session=True,
                )
                wait_ready(f"http://127.0.0.1:{port}", server)
                ran.append(b.where)
                continue
            proc = subprocess.run(
                ["bash", "-eo", "pipefail", "-c", script],
                cwd=REPO,
                env=walk_env,
                capture_output=True,
                text=True,
                timeout=900,
            )
            assert proc.returncode == 0, (
                f"{b.where} failed (exit {proc.returncode}):\n{b.body}\n"
                f"--- stdout ---\n{proc.stdout[-3000:]}\n--- stderr ---\n{proc.stderr[-3000:]}"
            )
            ran.append(b.where)
            check_output(b.body, proc.stdout, proc.stderr, walk_env)
    finally:
        if server is not None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
    assert all(reason for _, reason in skipped)
    assert len(ran) >= MIN_RAN[chain], ran
    data = Path(walk_env["HOME"]) / ".local" / "share" / "t2i-judge"
    for folder in USER_DATA[chain]:
        assert (data / folder).exists(), f"{folder} not in user data after the {chain} chain"
    assert git_status() == before, "following the docs changed the checkout"


MIN_RAN = {"start": 20, "evaluate": 8, "service": 8}
"""Blocks each chain runs at least (a page that lost its examples shows here); 36 in all today."""
USER_DATA = {
    "start": [],
    "evaluate": ["memories/prompt-CO/CURRENT", "runs"],
    "service": ["service"],
}
"""What each chain leaves in the user data folder (the docs say where things go)."""


def test_few_blocks_are_excluded_from_the_walk() -> None:
    """A ``skip`` marker is for what cannot run here (a real provider, the suite itself)."""
    skipped = [
        b.where
        for b in walk_blocks()
        if b.lang in ("sh", "python") and (m := b.parsed()) and m[0] == "skip"
    ]
    assert len(skipped) <= MAX_SKIPPED, f"too many blocks excluded: {skipped}"


def run_python(b: Block, env: dict[str, str], port: str) -> None:
    """A ``python`` block in a fresh interpreter, as a reader would paste it."""
    proc = subprocess.run(
        [sys.executable, "-c", b.body.replace(PORT, port)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, (
        f"{b.where} (python) failed (exit {proc.returncode}):\n{b.body}\n"
        f"--- stdout ---\n{proc.stdout[-3000:]}\n--- stderr ---\n{proc.stderr[-3000:]}"
    )


def json_values(text: str) -> list:
    """Every JSON value printed one after another (curl adds no newlines)."""
    decoder, out, i = json.JSONDecoder(), [], 0
    while (start := text.find("{", i)) != -1:
        value, i = decoder.raw_decode(text, start)
        out.append(value)
    return out


def check_output(body: str, out: str, err: str, env: dict[str, str]) -> None:
    """What some blocks must visibly produce (beyond exit 0)."""
    if "make run" in body:
        side = json_values(out)[0]["objective"]["image"]
        assert side["coverage"] == {"scored": side["scored"], "total": 12}
        assert "What a judge model would add" in err and "checkpoints scored" in err
    if "--format text" in body:
        assert "Checklist (objective" in out and not out.lstrip().startswith("{")
    if "memory search" in body:
        hits = json.loads(next(line for line in out.splitlines() if line.startswith("[")))
        assert hits and all(h["id"].startswith("ex-") for h in hits)
    if "/v1/score" in body:
        result = json_values(out)[-1]
        assert all("skill" in d for d in result["subjective"]["image"].values())
        assert "coverage" in result["objective"]["prompt"]
    if "--ablation retrieval" in body:
        runs = Path(env["HOME"]) / ".local" / "share" / "t2i-judge" / "runs"
        (run,) = runs.glob("expert-jsonl-*")
        rows = json.loads((run / "report.json").read_text())["ablation"]["rows"]
        figures = {tuple(r[k] for k in ("mae", "within1", "spearman")) for r in rows.values()}
        assert len(figures) > 1, "the README's ablation example shows no difference"


def test_each_chain_has_its_walk_test() -> None:
    """A chain without its file would never be walked."""
    for chain in CHAINS:
        test = REPO / "tests" / "docs" / f"test_walk_{chain}.py"
        assert test.is_file(), f"the {chain} chain has no test: write {test.relative_to(REPO)}"
