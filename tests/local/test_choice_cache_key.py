"""Cached predictor choices are keyed by the code that computed them (issue 22): a change to
that code — not to its docstrings or comments — gives a new cache name, so a stale cache can
never hide a regression; a cache written under another key is not read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import skills.local.code_key as code_key_mod
from memory.store import MemoryStore
from skills.local.code_key import code_key, module_closure
from skills.local.selection import CHOICE_CODE, Choice, cache_path, save_choices
from tests.local.test_local_subjective import records

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.usefixtures("predictor_defaults")


@pytest.fixture
def memory(tmp_path: Path):
    recs = records(tmp_path / "src")
    return MemoryStore(tmp_path / "store").build("fam", recs, base_dir=tmp_path / "src")


def test_the_key_covers_the_whole_predictor_and_nothing_else() -> None:
    closure = set(module_closure(CHOICE_CODE))
    want = {"predictor", "selection", "members", "sibling", "settings", "agreement"}
    assert {f"skills.local.{m}" for m in want} <= closure
    assert "skills.local.ocr" not in closure  # object checks do not compute choices
    name = cache_path(Path("c"), "a" * 40, "k").name
    assert name == f"choices-{code_key(CHOICE_CODE)}-{'a' * 24}-k.json"


@pytest.fixture
def package_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of skills/local that the key is computed from (the real one is not touched)."""
    root = tmp_path / "skills"
    shutil.copytree(REPO / "skills" / "local", root / "local")
    (root / "__init__.py").write_text("")
    real = code_key_mod.importlib.util.find_spec

    def find_spec(name: str, *args: object):
        spec = real(name, *args)
        if name == "skills.local":
            spec.submodule_search_locations = [str(root / "local")]
        return spec

    monkeypatch.setattr(code_key_mod.importlib.util, "find_spec", find_spec)
    code_key.cache_clear()
    yield root / "local"
    code_key.cache_clear()


def test_a_code_change_changes_the_key_and_a_comment_does_not(package_copy: Path) -> None:
    before = code_key(CHOICE_CODE)
    sibling = package_copy / "sibling.py"
    text = sibling.read_text()
    sibling.write_text(text.replace("# Changing either", "# Reworded: changing either") + "\n")
    code_key.cache_clear()
    assert code_key(CHOICE_CODE) == before, "a comment is not code"
    sibling.write_text(text.replace("MIN_SIBLING_RHO = 0.5", "MIN_SIBLING_RHO = 0.55"))
    code_key.cache_clear()
    assert code_key(CHOICE_CODE) != before, "a constant of an imported module is code"
    sibling.write_text(text)
    code_key.cache_clear()
    assert code_key(CHOICE_CODE) == before


@pytest.mark.slow
def test_choices_cached_under_another_code_key_are_not_read(memory, tmp_path: Path) -> None:
    from skills.local import predictor as predictor_mod
    from skills.local.predictor import MemoryModel

    cache = tmp_path / "cache"  # predictor_defaults' private cache
    bogus = Choice(("memory",), 3.0, 0.0, 0.9, 12, (0.0,), (1.0,), 0.1, (1.0,))
    key = f"{predictor_mod.config_key()}-all"
    mine = cache_path(cache, memory.manifest.checksum, key)
    older = mine.with_name(mine.name.replace(code_key(CHOICE_CODE), "0123456789abcdef"))
    save_choices(older, {d: bogus for d in memory.manifest.dimensions})
    got = MemoryModel(memory).choices()
    assert got and all(c != bogus for c in got.values())
    save_choices(mine, {d: bogus for d in memory.manifest.dimensions})  # this key *is* read
    assert MemoryModel(memory).choices() == {d: bogus for d in memory.manifest.dimensions}

