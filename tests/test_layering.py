"""Package layering (docs: design and layout).

Floors, lowest first: ``registry`` (the registry primitive every floor builds on; it imports
nothing of the product) < ``memory`` < ``skills`` < ``judge`` < ``api``/``eval``. A package imports
only from its own floor or below; no product package imports the harness (``benchmarks``,
``tests``); the service builds its engine in one place; product module names that confuse
(``bench``, ``journal``, ``engine``) are not repeated.

Sibling rules on the top floor: a workflow under ``eval/`` reaches another workflow only
through ``eval/kit`` (the few exceptions are named in :data:`SHARED_PROVIDERS` and
:data:`ALLOWED_CALLS`, each with its reason); ``eval`` never imports ``api``; ``api/core``
imports no other part of ``api``; and no private name (``_x``) is imported from one package
into another.

No import cycles: no two product modules import each other, directly or round a loop, lazy
imports inside functions included (type-only imports are not counted; the test says why)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Violations of the sibling rules still being removed, each (rule, importing file, imported
# module); empty since the shared kit landed. The list can only shrink:
# test_known_violations_still_exist fails for an entry that no longer happens. Never add a
# line: fix the import instead.
KNOWN_VIOLATIONS: frozenset[tuple[str, str, str]] = frozenset()
LOWER = ["judge", "skills", "memory", "registry"]
UPPER = {"api", "eval"}
PRODUCT = ["judge", "skills", "memory", "api", "eval", "registry"]
HARNESS = {"benchmarks", "tests"}
FORBIDDEN = {
    "registry": {"memory", "judge", "skills", "api", "eval"},
    "memory": {"judge", "skills", "api", "eval"},
    "skills": {"judge", "api", "eval"},
    "judge": {"api", "eval"},
    "api": set(),
    "eval": set(),
}


# The distribution's front door: ``judge.meta_eval``, ``judge.leaderboard`` and ``judge.study``
# are real functions of the installed ``judge`` package whose bodies import the eval workflow
# when called (the way judge/cli/verbs.py names verbs by string). Only this file may; the
# engine itself never reaches up.
FRONT_DOOR = {"judge/__init__.py"}


def parsed(path: Path) -> ast.Module:
    """``path`` parsed, once per version of the file: every rule below walks the same few
    hundred modules, and parsing them again for each rule cost the fast lane seconds."""
    stat = path.stat()
    return _parsed(str(path), stat.st_mtime_ns, stat.st_size)


@functools.cache
def _parsed(path: str, mtime_ns: int, size: int) -> ast.Module:
    return ast.parse(Path(path).read_text(encoding="utf-8"), filename=path)


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` or ``from … import`` names, at any depth of the file."""
    tree = parsed(path)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def sources(package: str) -> list[Path]:
    return sorted((REPO / package).rglob("*.py"))


def layered_sources(package: str) -> list[Path]:
    """The package's modules that the floor rules apply to (all but the front door)."""
    return [p for p in sources(package) if str(p.relative_to(REPO)) not in FRONT_DOOR]


@pytest.mark.parametrize("package", LOWER)
def test_lower_packages_never_import_api_or_eval(package: str) -> None:
    offenders = {
        str(path.relative_to(REPO)): sorted(m for m in mods if m.split(".")[0] in UPPER)
        for path in layered_sources(package)
        if (mods := imported_modules(path))
    }
    offenders = {k: v for k, v in offenders.items() if v}
    assert not offenders, f"imports of api/eval from {package}: {offenders}"


@pytest.mark.parametrize("package", PRODUCT)
def test_each_floor_imports_only_its_own_floor_or_below(package: str) -> None:
    offenders = {
        str(path.relative_to(REPO)): bad
        for path in layered_sources(package)
        if (
            bad := sorted(
                m for m in imported_modules(path) if m.split(".")[0] in FORBIDDEN[package]
            )
        )
    }
    assert not offenders, f"{package} reaches up: {offenders}"


@pytest.mark.parametrize("package", PRODUCT)
def test_no_product_package_imports_the_harness(package: str) -> None:
    offenders = {
        str(path.relative_to(REPO)): bad
        for path in sources(package)
        if (bad := sorted(m for m in imported_modules(path) if m.split(".")[0] in HARNESS))
    }
    assert not offenders, f"{package} imports benchmarks/tests: {offenders}"


def test_no_product_module_is_a_benchmark_or_a_fake() -> None:
    found = [
        str(path.relative_to(REPO))
        for package in PRODUCT
        for path in sources(package)
        if "bench" in path.stem or "fake" in path.stem or "fake" in path.parent.name
    ]
    assert not found, f"harness in the product: {found} (move to benchmarks/ or tests/fakes/)"


def test_confusing_module_names_are_not_repeated() -> None:
    for stem in ("bench", "journal", "engine"):
        found = [
            str(path.relative_to(REPO))
            for package in PRODUCT
            for path in sources(package)
            if path.stem == stem
        ]
        assert len(found) <= 1, f"{stem}.py in several places: {found}"


def test_every_product_package_says_what_it_is() -> None:
    vague = []
    for package in PRODUCT:
        for init in (REPO / package).rglob("__init__.py"):
            doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
            if len(doc) < 20 or "placeholder" in doc.lower() or "filled in by" in doc.lower():
                vague.append(str(init.relative_to(REPO)))
    assert not vague, f"packages without a docstring saying what they are: {vague}"


def test_the_front_door_imports_the_workflows_only_inside_functions() -> None:
    """``import judge`` stays cheap and the engine stays below eval: the front door's module
    level imports nothing from api/eval."""
    tree = ast.parse((REPO / "judge" / "__init__.py").read_text(encoding="utf-8"))
    top = {
        n.module if isinstance(n, ast.ImportFrom) else a.name
        for n in tree.body
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in (n.names if isinstance(n, ast.Import) else [n])
    }
    assert not {m for m in top if m and m.split(".")[0] in UPPER}, top


def test_the_walker_sees_function_level_imports(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from api.app import create_app\n    import eval.metaeval.cli\n")
    assert imported_modules(probe) == {"api.app", "eval.metaeval.cli"}


def test_the_worker_does_not_import_the_app() -> None:
    assert not {
        m for m in imported_modules(REPO / "api" / "jobs" / "worker.py") if m == "api.app"
    }


def test_the_service_builds_its_engine_in_one_place() -> None:
    builders = []
    for path in sources("api"):
        tree = parsed(path)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Judge"
            ):
                builders.append(str(path.relative_to(REPO)))
    assert builders == ["api/judging/factory.py"], builders


# --- sibling rules -----------------------------------------------------------------------

EVAL = REPO / "eval"
KIT = "kit"

SHARED_PROVIDERS: dict[str, str] = {
    "datasets": "adapters from labelled datasets to judge submissions; meta-eval, studies "
    "and campaigns all read labels through them",
    "t2i": "text-to-image generation; studies and probes both make images with it",
    "i2i": "image edits (image-to-image); edit studies and editor probes both edit with it",
    "leaderboards": "the ranking of votes (Bradley-Terry, Elo, win rate) every workflow "
    "that compares models reports with",
    "trust": "per-item trust (human-label readers, calibration, the risk-coverage curve); "
    "meta-eval, study and campaign reports and --from-abstained campaigns all read it",
}
"""Workflow packages any other may import (they import only the kit and each other)."""

ALLOWED_CALLS: dict[tuple[str, str], str] = {
    ("tasks", "studies"): "the `judge tasks` verb checks suites and writes checklists",
    ("tasks", "evidence"): "the `judge tasks` verb builds suites from posts and run reports",
    ("tasks", "edit_tasks"): "the `judge tasks` verb writes edit instructions",
    ("evidence", "studies.suite"): "suites from posts are written in the studies' task "
    "suite format (eval/studies/suite.py, which the service reads too)",
}
"""(importer, imported package or module under eval/): the one-way calls allowed."""


def workflows() -> list[str]:
    return sorted(p.name for p in EVAL.iterdir() if (p / "__init__.py").is_file())


def imports_with_names(path: Path) -> list[tuple[str, str | None]]:
    """(module, imported name or None) for every absolute import of the file."""
    tree = parsed(path)
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.module, alias.name) for alias in node.names]
    return found


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def sibling_allowed(own: str, module: str) -> bool:
    parts = module.split(".")
    if parts[0] != "eval" or len(parts) < 2 or parts[1] in (own, KIT):
        return True
    other = parts[1]
    if own == KIT:
        return False  # the kit sits below every workflow
    if other in SHARED_PROVIDERS:
        return True
    return any(
        (own, allowed) in ALLOWED_CALLS
        for allowed in (other, ".".join(parts[1:3]))
    )


def sibling_violations() -> set[tuple[str, str, str]]:
    found = set()
    for path in sources("eval"):
        parts = path.relative_to(EVAL).parts
        if len(parts) < 2:
            continue
        own = parts[0]
        for module in imported_modules(path):
            if own in SHARED_PROVIDERS and module.startswith("eval."):
                ok = module.split(".")[1] in (own, KIT, *SHARED_PROVIDERS)
            else:
                ok = sibling_allowed(own, module)
            if not ok:
                found.add(("sibling", rel(path), module))
    return found


def eval_api_violations() -> set[tuple[str, str, str]]:
    return {
        ("eval-api", rel(path), m)
        for path in sources("eval")
        for m in imported_modules(path)
        if m.split(".")[0] == "api"
    }


def api_core_violations() -> set[tuple[str, str, str]]:
    return {
        ("api-core", rel(path), m)
        for path in sources("api/core")
        for m in imported_modules(path)
        if m.split(".")[0] == "api" and m.split(".")[:2] != ["api", "core"]
    }


def package_of_module(module: str) -> str:
    """The package a dotted module lives in (a package is its own)."""
    if (REPO / Path(*module.split(".")) / "__init__.py").is_file():
        return module
    return module.rpartition(".")[0]


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_import_violations() -> set[tuple[str, str, str]]:
    found = set()
    for package in PRODUCT:
        for path in sources(package):
            own = ".".join(path.relative_to(REPO).parent.parts)
            for module, name in imports_with_names(path):
                names = [n for n in module.split(".") if private(n)]
                if name is not None and private(name):
                    names.append(name)
                if names and package_of_module(module) != own:
                    found.add(("private", rel(path), f"{module}:{','.join(names)}"))
    return found


RULES = {
    "sibling": sibling_violations,
    "eval-api": eval_api_violations,
    "api-core": api_core_violations,
    "private": private_import_violations,
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_sibling_rules_hold_but_for_known_violations(rule: str) -> None:
    """(sibling) workflows meet through eval/kit; (eval-api) eval never imports api;
    (api-core) api/core imports no other part of api; (private) no ``_name`` crosses a
    package boundary."""
    new = RULES[rule]() - KNOWN_VIOLATIONS
    assert not new, (
        f"{rule}: {sorted(new)}; move what both sides need into eval/kit (or make it public "
        "in its own package) instead of reaching into a sibling"
    )


def test_known_violations_still_exist() -> None:
    """The allowlist only shrinks: an entry that no longer happens must be deleted."""
    current = set().union(*(find() for find in RULES.values()))
    gone = sorted(KNOWN_VIOLATIONS - current)
    assert not gone, f"fixed, so delete from KNOWN_VIOLATIONS: {gone}"


def test_every_exception_names_a_real_package_and_a_reason() -> None:
    names = set(workflows())
    for importer, imported in ALLOWED_CALLS:
        assert importer in names and imported.split(".")[0] in names, (importer, imported)
    assert set(SHARED_PROVIDERS) <= names
    assert all(len(why) > 20 for why in [*SHARED_PROVIDERS.values(), *ALLOWED_CALLS.values()])


def test_the_sibling_walker_sees_what_it_should(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from judge.llm.cache import _hidden\nimport eval.metaeval._x\n")
    assert imports_with_names(probe) == [("judge.llm.cache", "_hidden"), ("eval.metaeval._x", None)]
    assert not sibling_allowed("campaigns", "eval.metaeval.agreement")
    assert sibling_allowed("campaigns", "eval.kit.admin")
    assert sibling_allowed("studies", "eval.t2i")
    assert sibling_allowed("evidence", "eval.studies.suite")
    assert not sibling_allowed("evidence", "eval.studies.runner")
    assert not sibling_allowed(KIT, "eval.studies.suite")
    assert package_of_module("eval.kit.admin") == "eval.kit"
    assert package_of_module("eval.kit") == "eval.kit"


# --- import cycles -----------------------------------------------------------------------


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def product_modules() -> dict[str, Path]:
    return {module_name(p): p for package in PRODUCT for p in sources(package)}


def type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def runtime_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import that can run: at module level or inside a function (a lazy import still
    ties the two modules together), but not under ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append(child)
            elif isinstance(child, ast.If) and type_checking(child.test):
                todo.extend(child.orelse)
            else:
                todo.append(child)
    return found


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """module → the product modules it imports (``from a import b`` names ``a.b`` when that
    is a module, else ``a``)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in runtime_imports(parsed(path)):
            if isinstance(node, ast.Import):
                edges |= {a.name for a in node.names if a.name in modules}
                continue
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([node.module] if node.module else [])])
            for alias in node.names:
                target = f"{base}.{alias.name}"
                edges.add(target if target in modules else base)
        graph[name] = {m for m in edges if m in modules and m != name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def test_no_import_cycles_between_product_modules() -> None:
    """No two product modules import each other, directly or round a loop, counting lazy
    imports inside functions. Imports under ``if TYPE_CHECKING:`` are left out: they never
    run, so they cannot make import order matter, and they let a pair name each other's
    types (a mode's hooks take the run context, which holds the mode). Break a cycle by
    moving what both sides need into a third module (as judge/modes/edit/cards.py,
    api/probes/ids.py, eval/evidence/options.py and eval/studies/run_common.py do)."""
    cycles = import_cycles(import_graph(product_modules()))
    assert not cycles, f"import cycles: {cycles}"


def test_the_cycle_finder_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles(graph) == [["a", "b", "c"]]
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import api.app\n"
        "def f():\n    from eval.kit import stats\n"
    )
    names = {
        a.name if isinstance(n, ast.Import) else n.module
        for n in runtime_imports(ast.parse(probe.read_text()))
        for a in n.names
    }
    assert names == {"typing", "eval.kit"}
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import a\n")
    (pkg / "a.py").write_text("def f():\n    from .b import g\n")
    (pkg / "b.py").write_text("from pkg import a\n")
    files = {"pkg": pkg / "__init__.py", "pkg.a": pkg / "a.py", "pkg.b": pkg / "b.py"}
    assert import_graph(files) == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}}
    assert import_cycles(import_graph(files)) == [["pkg.a", "pkg.b"]]
