"""Package layering (docs: design and layout).

Floors, lowest first: ``memory`` < ``skills`` < ``judge`` < ``api``/``eval``. A package imports
only from its own floor or below; no product package imports the harness (``benchmarks``,
``tests``); the service builds its engine in one place; product module names that confuse
(``bench``, ``journal``, ``engine``) are not repeated."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LOWER = ["judge", "skills", "memory"]
UPPER = {"api", "eval"}
PRODUCT = ["judge", "skills", "memory", "api", "eval"]
HARNESS = {"benchmarks", "tests"}
FORBIDDEN = {
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


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` or ``from … import`` names, at any depth of the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
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
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Judge"
            ):
                builders.append(str(path.relative_to(REPO)))
    assert builders == ["api/judging/factory.py"], builders
