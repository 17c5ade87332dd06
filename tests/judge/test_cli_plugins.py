"""``judge`` verbs registered by other packages through entry points (``t2i_judge.commands``).

A real distribution (a ``.dist-info`` folder with ``entry_points.txt``) is put on ``sys.path``,
so discovery goes through :mod:`importlib.metadata` exactly as for an installed package.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.cli import plugins
from judge.cli.main import build_parser, main

PLUGIN = """
def register(sub):
    p = sub.add_parser("demo-verb", help="a verb from another package")
    p.add_argument("--times", type=int, default=1)
    p.set_defaults(handler=lambda args: 40 + args.times)
"""


def install_fake_dist(site: Path, entries: dict[str, str]) -> None:
    """A minimal installed distribution declaring ``entries`` in the commands group."""
    info = site / "demo_verbs-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-verbs\nVersion: 0.1\n")
    lines = [f"[{plugins.GROUP}]", *(f"{k} = {v}" for k, v in entries.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    (site / "demo_verbs_plugin.py").write_text(PLUGIN)


@pytest.fixture
def fake_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    install_fake_dist(
        site,
        {
            "demo-verb": "demo_verbs_plugin:register",
            "broken-verb": "demo_verbs_no_such_module:register",
        },
    )
    monkeypatch.syspath_prepend(str(site))
    return site


def test_the_service_and_evaluation_verbs_are_registered() -> None:
    names = {e.name for e in plugins.discover()}
    assert {"serve", "worker", "load-bench", "meta-eval"} <= names
    verbs = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert {"score", "skills", "memory", "bench", "serve", "meta-eval"} <= set(verbs)


def test_an_installed_package_adds_a_verb(fake_dist: Path) -> None:
    assert "demo-verb" in {e.name for e in plugins.discover()}
    assert main(["demo-verb", "--times", "2"]) == 42


def test_a_verb_whose_module_fails_to_import_says_so(
    fake_dist: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["broken-verb", "anything"]) == 2
    err = capsys.readouterr().err
    assert "'broken-verb' command is unavailable" in err
    assert "demo_verbs_no_such_module" in err and "ModuleNotFoundError" in err
    assert main(["demo-verb"]) == 41  # the other verbs still work


def test_help_lists_every_verb_without_markup(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    for verb in ("score", "skills", "memory", "bench", "serve", "worker", "load-bench"):
        assert f"    {verb} " in out
    assert "meta-eval" in out and "``" not in out
