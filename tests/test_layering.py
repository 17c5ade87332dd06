"""Package layering: the engine, skills and memories never import the service or the
evaluation code; the service builds its engine in one place and has no import cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LOWER = ["judge", "skills", "memory"]
UPPER = {"api", "eval"}


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


@pytest.mark.parametrize("package", LOWER)
def test_lower_packages_never_import_api_or_eval(package: str) -> None:
    offenders = {
        str(path.relative_to(REPO)): sorted(m for m in mods if m.split(".")[0] in UPPER)
        for path in sources(package)
        if (mods := imported_modules(path))
    }
    offenders = {k: v for k, v in offenders.items() if v}
    assert not offenders, f"imports of api/eval from {package}: {offenders}"


def test_the_walker_sees_function_level_imports(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from api.app import create_app\n    import eval.cli\n")
    assert imported_modules(probe) == {"api.app", "eval.cli"}


def test_the_worker_does_not_import_the_app() -> None:
    assert not {m for m in imported_modules(REPO / "api" / "worker.py") if m == "api.app"}


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
    assert builders == ["api/engine.py"], builders
