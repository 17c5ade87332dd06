"""Skill kinds are registry entries per backend, imported only when a card needs one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from registry import UnknownName
from skills.kinds import KINDS, available_backends, available_kinds, build_skill, register_kind
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
BUILT_IN = {  # (kind, backend) -> the module of its factory
    **{(kind, "llm"): f"skills.kinds.{m}" for kind, m in MODULES.items()},
    **{(kind, "local"): f"skills.local.{m}" for kind, m in MODULES.items()},
    ("shift-metrics", "llm"): "skills.kinds.shift",
    ("shift-metrics", "local"): "skills.kinds.shift",  # model-free: one module for both
}


def test_every_built_in_kind_is_registered_lazily_in_its_module() -> None:
    found = {
        (kind, backend): (reg.target(kind) or "").partition(":")[0]
        for backend, reg in KINDS.items()
        for kind in reg
    }
    assert found == BUILT_IN
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


def test_a_kind_registered_at_run_time_is_built() -> None:
    calls = []

    @register_kind("echo-for-test", backend="local")
    def echo(card):
        calls.append(card.name)
        return lambda inp, client: None

    try:
        card = default_registry().card("image_check").model_copy(update={"kind": "echo-for-test"})
        assert "echo-for-test" in available_kinds()
        assert build_skill(card, "local").backend == "local" and calls == ["image_check"]
        with pytest.raises(KeyError, match="has no 'llm' implementation; backends: \\['local'\\]"):
            build_skill(card, "llm")
    finally:
        KINDS["local"].remove("echo-for-test")


def test_an_unknown_backend_is_named() -> None:
    card = default_registry().card("image_check")
    with pytest.raises(UnknownName, match="unknown backend 'locl'; did you mean 'local'"):
        build_skill(card, "locl")


def test_an_unknown_kind_suggests_the_closest() -> None:
    card = default_registry().card("image_check").model_copy(update={"kind": "objective-checklst"})
    with pytest.raises(KeyError) as err:
        build_skill(card)
    assert str(err.value).startswith(
        "card 'image_check' has unknown kind 'objective-checklst'; "
        "did you mean 'objective-checklist'? available: edit-pairwise, "
    )
