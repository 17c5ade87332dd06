"""The extras' module table against pyproject.toml, and the one-line message where it shows.

The core install itself (a fresh venv without the extras) is checked in tests/test_install.py;
these run on the full set ``make setup`` installs."""

from __future__ import annotations

import importlib.metadata as md
from functools import cache

import pytest

from judge.cli import main as cli
from skills.extras import (
    EXTRAS,
    MissingExtra,
    check_installed,
    extra_of,
    from_missing_module,
    missing_modules,
    needs,
    require,
)
from tests.core_install import canonical, core_closure, core_requirements


@cache
def shipped_by() -> dict[str, set[str]]:
    """Top-level module -> the installed distributions whose files hold it (read from each
    RECORD: top_level.txt can be wrong, dlib-bin's names only its pybind11 helper)."""
    found: dict[str, set[str]] = {}
    for dist in md.distributions():
        name = canonical(dist.metadata["Name"])
        for file in dist.files or []:
            top = file.parts[0].split(".")[0] if len(file.parts) == 1 else file.parts[0]
            found.setdefault(top, set()).add(name)
    return found


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_each_module_of_an_extra_comes_with_that_extra_and_not_with_the_core(extra: str) -> None:
    """A module the table names is shipped by a distribution of the extra's closure (so the
    message sends the user to the right extra) and by none of the core's."""
    core = set(core_closure(core_requirements()))
    with_extra = set(core_closure(core_requirements(extra), absent=set()))
    shipping = shipped_by()
    for module in EXTRAS[extra]:
        dists = shipping.get(module, set())
        assert dists & with_extra, (module, dists)
        assert not dists & core, (module, dists & core)


def test_make_setup_installs_every_extra() -> None:
    """The lock holds everything: the environment the tests run in lacks no extra."""
    assert [module for extra in EXTRAS for module in missing_modules(extra)] == []
    check_installed("local", "the local backend")


def test_only_a_missing_module_of_an_extra_becomes_the_one_line() -> None:
    faiss = ModuleNotFoundError("No module named 'faiss'", name="faiss")
    assert str(from_missing_module(faiss, "memory build")) == (
        "memory build needs the [local] extra (faiss is not installed): "
        "pip install 't2i-judge[local]'")
    own = ModuleNotFoundError("No module named 'judge.nothing'", name="judge.nothing")
    assert from_missing_module(own, "x") is None  # our own bug: not an install problem
    assert from_missing_module(ValueError("faiss"), "x") is None
    assert extra_of("scipy.stats") == "local" and extra_of("scipy.stats", "eval") == "eval"
    with pytest.raises(ModuleNotFoundError) as raised, needs("local", "x"):
        raise own
    assert raised.value is own


def test_require_names_the_extra_for_the_module_asked_for() -> None:
    with pytest.raises(MissingExtra) as raised:
        require("t2i_judge_no_such_module", "service", "the dashboard")
    assert str(raised.value) == (
        "the dashboard needs the [service] extra (t2i_judge_no_such_module is not installed): "
        "pip install 't2i-judge[service]'")
    assert isinstance(raised.value, ImportError) and "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("verb", "module", "extra"),
    [("serve", "uvicorn", "service"), ("leaderboard", "scipy", "eval"),
     ("memory", "faiss", "local"), ("score", "torch", "local")],
)
def test_the_command_prints_one_line_and_exits_2(
    verb: str, module: str, extra: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A verb whose module (or whose run) needs a missing extra: one line on stderr, exit 2;
    a module SciPy-like in two extras is named by the verb's floor (eval for leaderboard)."""

    def missing(*_args: object) -> None:
        raise ModuleNotFoundError(f"No module named '{module}'", name=module)

    monkeypatch.setattr(cli, "build_parser", missing)
    assert cli.main([verb]) == 2
    err = capsys.readouterr().err
    assert err == (f"judge {verb}: this command needs the [{extra}] extra ({module} is not "
                   f"installed): pip install 't2i-judge[{extra}]'\n")


def test_a_bug_in_our_own_imports_still_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object) -> None:
        raise ModuleNotFoundError("No module named 'judge.gone'", name="judge.gone")

    monkeypatch.setattr(cli, "build_parser", broken)
    with pytest.raises(ModuleNotFoundError):
        cli.main(["score"])
