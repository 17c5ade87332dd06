"""The type checker stays in the pipeline (``docs/testing.md``): ``make test`` and
``make test-fast`` run mypy between ruff and pytest, pyproject's ``[tool.mypy]`` checks every
product package, missing imports are ignored only for the libraries it names, mypy and its
stubs are pinned alike in the dev extra and the lock, and every ``# type: ignore`` in the
product packages carries an error code and a reason. mypy itself is run by make, not here."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IGNORE = re.compile(r"#\s*type:\s*ignore\b(?P<rest>.*)$")
WITH_REASON = re.compile(r"^\[[a-z-]+(, ?[a-z-]+)*\]  # \S")


def pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def product_packages() -> list[str]:
    """The packages the distribution ships (setuptools' ``include`` patterns)."""
    found = pyproject()["tool"]["setuptools"]["packages"]["find"]["include"]
    return sorted(p.removesuffix("*") for p in found)


def recipe(target: str) -> list[str]:
    """The command lines of a Makefile target, in order."""
    make = (REPO / "Makefile").read_text(encoding="utf-8")
    (body,) = re.findall(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", make, re.M)
    return [line.strip() for line in body.splitlines()]


def test_make_test_targets_run_mypy_between_ruff_and_pytest() -> None:
    make = (REPO / "Makefile").read_text(encoding="utf-8")
    (mypy,) = re.findall(r"^MYPY := (.+)$", make, re.M)
    assert mypy.endswith("-m mypy"), mypy
    for target in ("test", "test-fast"):
        lines = recipe(target)
        order = [
            next(i for i, line in enumerate(lines) if "ruff check" in line),
            lines.index("$(MYPY)"),
            next(i for i, line in enumerate(lines) if line.startswith("$(PYTEST)")),
        ]
        assert order == sorted(order), (target, lines)


def test_mypy_checks_every_product_package_with_its_settings() -> None:
    config = pyproject()["tool"]["mypy"]
    assert sorted(config["files"]) == product_packages()
    assert config["python_version"] == "3.11"
    assert config["check_untyped_defs"] is True
    assert config["warn_unused_ignores"] is True
    assert "ignore-without-code" in config["enable_error_code"]
    assert "ignore_missing_imports" not in config, "name the libraries, not every import"
    for override in config.get("overrides", []):
        modules = override["module"]
        assert not any(m.split(".")[0] in product_packages() for m in modules), override


def test_mypy_and_its_stubs_are_pinned_alike_in_the_dev_extra_and_the_lock() -> None:
    dev = pyproject()["project"]["optional-dependencies"]["dev"]
    lock = (REPO / "requirements.lock").read_text(encoding="utf-8").split()
    checker = [d for d in dev if d.startswith(("mypy==", "types-"))]
    assert any(d.startswith("mypy==") for d in checker), dev
    for pin in checker:
        assert pin in lock, f"{pin} is in the dev extra but not in requirements.lock"


def test_every_type_ignore_in_the_product_packages_names_its_code_and_reason() -> None:
    bare = []
    for package in product_packages():
        for path in sorted((REPO / package).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                found = IGNORE.search(line)
                if found and not WITH_REASON.match(found["rest"]):
                    bare.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert not bare, "give each ignore its code and '  # why':\n" + "\n".join(bare)
