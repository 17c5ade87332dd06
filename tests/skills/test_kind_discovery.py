"""Skill kinds are found by reading their modules, and imported only when a card needs one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from skills.kinds import available_backends, available_kinds, build_skill
from skills.kinds.discovery import discover_kinds, registrations
from skills.registry import default_registry

REPO = Path(__file__).resolve().parents[2]
MODULES = {  # kind -> its module's name in skills/kinds and skills/local
    "subjective-rubric": "subjective",
    "objective-checklist": "objective",
    "safety": "safety",
    "pairwise-preference": "pairwise",
    "edit-rubric": "edit",
    "edit-pairwise": "edit_pairwise",
}
BUILT_IN = {
    **{(kind, "llm"): f"skills.kinds.{m}" for kind, m in MODULES.items()},
    **{(kind, "local"): f"skills.local.{m}" for kind, m in MODULES.items()},
    ("shift-metrics", "llm"): "skills.kinds.shift",
    ("shift-metrics", "local"): "skills.kinds.shift",  # model-free: one module for both
}


def test_every_built_in_kind_is_found_in_its_module() -> None:
    assert discover_kinds() == BUILT_IN
    assert available_kinds() == sorted({k for k, _ in BUILT_IN})
    assert available_backends() == ["llm", "local"]


def test_every_card_of_the_package_builds_on_both_backends() -> None:
    reg = default_registry()
    for card in reg.cards(enabled_only=False):
        for backend in ("llm", "local"):
            assert build_skill(card, backend).card is card


def test_listing_kinds_imports_no_kind_module_and_no_model_library() -> None:
    probe = (
        "import sys\n"
        "from skills.kinds import available_kinds\n"
        "assert 'objective-checklist' in available_kinds()\n"
        "heavy = ('torch', 'numpy', 'PIL', 'scipy', 'skills.local.objective',"
        " 'skills.kinds.objective')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip() == "[]", out.stderr


def write_package(root: Path, name: str, modules: dict[str, str]) -> None:
    pkg = root / name
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""A package of kinds for a test."""\n')
    for module, source in modules.items():
        (pkg / f"{module}.py").write_text(source)


def test_a_new_kind_module_is_found_without_listing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_package(
        tmp_path,
        "extra_kinds_a",
        {
            "echo": "from skills.kinds import register_kind\n\n"
            '@register_kind("echo")\ndef echo(card):\n    return None\n\n'
            '@register_kind("echo", backend="local")\ndef echo_local(card):\n    return None\n',
            "helpers": "def not_a_kind():\n    return 1\n",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    found = discover_kinds(("extra_kinds_a",))
    assert found == {("echo", "llm"): "extra_kinds_a.echo", ("echo", "local"): "extra_kinds_a.echo"}
    assert "extra_kinds_a.echo" not in sys.modules


def test_two_modules_registering_one_kind_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = '@register_kind("twice")\ndef f(card):\n    return None\n'
    write_package(tmp_path, "extra_kinds_b", {"one": source, "two": source})
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match=r"extra_kinds_b\.one and extra_kinds_b\.two"):
        discover_kinds(("extra_kinds_b",))


def test_a_computed_kind_name_is_refused_with_what_to_write() -> None:
    with pytest.raises(ValueError, match="plain strings"):
        registrations('NAME = "x"\n@register_kind(NAME)\ndef f(card): ...\n', "mod.py")


def test_registrations_read_positional_and_keyword_backends() -> None:
    source = (
        '@register_kind("a")\ndef f(card): ...\n'
        '@register_kind("b", "local")\ndef g(card): ...\n'
        '@kinds.register_kind("c", backend="local")\nasync def h(card): ...\n'
        '@other("d")\ndef i(card): ...\n'
    )
    assert registrations(source) == [("a", "llm"), ("b", "local"), ("c", "local")]


def test_an_unknown_kind_suggests_the_closest() -> None:
    card = default_registry().card("image_check").model_copy(update={"kind": "objective-checklst"})
    with pytest.raises(KeyError, match="did you mean 'objective-checklist'"):
        build_skill(card)
