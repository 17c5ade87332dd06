"""The registry primitive: decorator and lazy entries, the did-you-mean error, entry points.

Plugins here are real distributions as importlib.metadata finds them: a ``*.dist-info``
folder (METADATA and entry_points.txt) next to the plugin's module on ``sys.path``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from registry import PluginError, Registry, UnknownName, did_you_mean
from registry.core import installed_entry_points


def test_decorator_and_lazy_entries_and_info() -> None:
    reg = Registry[object]("widget")

    @reg.register("knob", help="turns")
    def knob() -> str:
        return "k"

    reg.add_lazy("fraction", "fractions:Fraction")
    assert reg.names() == ["fraction", "knob"]
    assert list(reg) == ["knob", "fraction"]  # registration order
    assert reg.get("knob") is knob and reg["knob"] is knob
    assert reg.info("knob") == {"help": "turns"} and reg.origin("knob") == "built-in"
    assert reg.get("fraction").__name__ == "Fraction"
    assert "knob" in reg and "nope" not in reg and len(reg) == 2


def test_a_table_of_lazy_built_ins_at_construction() -> None:
    reg = Registry[object]("codec", lazy={"dumps": "json:dumps", "loads": "json:loads"})
    assert reg.names() == ["dumps", "loads"] and reg.target("dumps") == "json:dumps"
    assert reg.get("loads")("[1]") == [1]
    with pytest.raises(ValueError, match="not 'module:attr'"):
        Registry[object]("codec", lazy={"bad": "json.dumps"})


def test_lazy_entries_import_nothing_until_used(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "heavy_mod_for_registry.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    reg = Registry[int]("value")
    reg.add_lazy("answer", "heavy_mod_for_registry:VALUE")
    assert reg.names() == ["answer"]
    assert "heavy_mod_for_registry" not in sys.modules
    assert reg.get("answer") == 42
    assert "heavy_mod_for_registry" in sys.modules


def test_unknown_name_is_one_line_with_suggestions() -> None:
    reg = Registry[int]("mode")
    for name in ("score", "compare", "edit"):
        reg.add(name, 1)
    with pytest.raises(KeyError) as err:
        reg.get("scor")
    exc = err.value
    assert isinstance(exc, UnknownName)
    assert str(exc) == "unknown mode 'scor'; did you mean 'score'? available: compare, edit, score"
    assert exc.suggestions == ["score"] and exc.names == ["compare", "edit", "score"]
    with pytest.raises(UnknownName, match="available: compare"):
        reg.get(["not", "a", "name"])  # type: ignore[arg-type]
    assert "did you mean" not in str(UnknownName("mode", "zzz", ["score"]))


def test_registering_a_name_twice_is_refused_unless_replaced() -> None:
    reg = Registry[int]("metric")
    reg.add("a", 1)
    reg.add_lazy("b", "json:dumps")
    reg.add_lazy("b", "json:dumps")  # the same entry again is fine
    with pytest.raises(ValueError, match="metric 'a' is registered twice"):
        reg.add("a", 2)
    reg.add("a", 2, replace=True)
    assert reg.get("a") == 2
    with pytest.raises(ValueError, match="not 'module:attr'"):
        reg.add_lazy("c", "json")
    with pytest.raises(ValueError, match="non-empty string"):
        reg.add("", 3)


def fake_distribution(root: Path, dist: str, group: str, entries: dict[str, str]) -> None:
    """An installed distribution as importlib.metadata reads it (no pip needed)."""
    info = root / f"{dist.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entries.items())
    (info / "entry_points.txt").write_text(f"[{group}]\n{lines}")


def test_entry_points_are_found_lazily_and_failures_name_the_distribution(
    tmp_path: Path, monkeypatch, request
) -> None:
    group = "t2i_judge.test_widgets"
    (tmp_path / "acme_widgets.py").write_text("def sprocket():\n    return 'sprocket'\n")
    (tmp_path / "acme_broken.py").write_text("import no_such_module_anywhere\n")
    fake_distribution(
        tmp_path,
        "acme-widgets",
        group,
        {
            "sprocket": "acme_widgets:sprocket",
            "broken": "acme_broken:thing",
            "knob": "acme_widgets:sprocket",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    installed_entry_points.cache_clear()  # the metadata is read once per process
    request.addfinalizer(installed_entry_points.cache_clear)
    reg = Registry[object]("widget", group=group)
    reg.add("knob", "built-in knob")
    with pytest.warns(UserWarning, match="acme-widgets registers widget 'knob'"):
        assert reg.names() == ["broken", "knob", "sprocket"]
    assert "acme_widgets" not in sys.modules  # listing imports nothing
    assert reg.names(plugins=False) == ["knob"]
    assert reg.get("sprocket")() == "sprocket"
    assert reg.origin("sprocket") == "plugin acme-widgets"
    assert reg.get("knob") == "built-in knob"  # a plugin never shadows a built-in
    with pytest.raises(PluginError) as err:
        reg.get("broken")
    assert err.value.distribution == "acme-widgets"
    assert "uninstall acme-widgets" in str(err.value)
    assert "no_such_module_anywhere" in str(err.value)
    with pytest.raises(UnknownName, match="did you mean 'sprocket'"):
        reg.get("sprockt")
    reg.rescan()
    with pytest.warns(UserWarning):
        assert "sprocket" in reg


def test_did_you_mean_spellings() -> None:
    assert did_you_mean("minlm", ["minilm", "nomic"]) == "did you mean 'minilm'?"
    assert did_you_mean("abx", ["abc", "xyz"], n=2, quote=False) == "did you mean abc?"
