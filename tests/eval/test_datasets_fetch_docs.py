"""``docs/public-sets.md``'s fetch examples, run as written against the loopback stand-ins.

The docs walk runs the page's ``sh`` blocks offline (``HF_HUB_OFFLINE=1``, no Hub), which is
what its offline example shows. The fetch examples need a Hub, so they are the page's ``text``
lines starting ``judge datasets fetch``: this test runs each one against
:class:`tests.fakes.hf_hub.FakeHub` (``HF_ENDPOINT``, and ``--mirror`` for the authors' files),
with its folders under a temporary directory, and checks the exit code the page promises. It
also holds the page's printed offline message to the command's real output, and every option
of ``judge datasets fetch`` to the page and to ``--help``.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from judge.cli.main import main
from tests.docs.pages import DOCS, blocks, shell_commands
from tests.eval.test_datasets_fetch import manual_set, serve_hpdv2
from tests.fakes.hf_hub import FakeHub

PAGE = "public-sets.md"
EXPECTED_EXIT = {"hpdv2": 0, "tifa": 3, "tifa --archive": 0}


def fetch_examples() -> list[list[str]]:
    return [
        shlex.split(line)
        for body in blocks(PAGE, "text")
        for line in body.splitlines()
        if line.startswith("judge datasets fetch ")
    ]


def test_the_pages_fetch_examples_run_against_the_stand_ins(
    hub: FakeHub, tmp_path: Path, capsys
) -> None:
    serve_hpdv2(hub, tmp_path)
    _, archive = manual_set(hub, tmp_path, "tifa")
    examples = fetch_examples()
    assert len(examples) == 3, examples
    for argv in examples:
        args = argv[1:]  # without "judge"
        to = args.index("--to") + 1
        args[to] = str(tmp_path / "work" / args[to])
        if "--archive" in args:
            at = args.index("--archive") + 1
            Path(tmp_path / "downloads").mkdir(exist_ok=True)
            args[at] = str(tmp_path / "downloads" / Path(args[at]).name)
            Path(args[at]).write_bytes(archive)
        key = args[2] + (" --archive" if "--archive" in args else "")
        code = main([*args, "--mirror", hub.url, "--no-progress"])
        assert code == EXPECTED_EXIT[key], (argv, capsys.readouterr())
        out = capsys.readouterr().out
        assert "licence:" in out and "cite:" in out


def test_the_offline_example_prints_what_the_page_shows(tmp_path: Path) -> None:
    (command,) = [c for c in shell_commands(PAGE) if c[1:3] == ["datasets", "fetch"]]
    shown = next(b for b in blocks(PAGE, "text") if "HF_HUB_OFFLINE is set" in b)
    to = tmp_path / "HPDv2"
    args = [*command[1:command.index("||")]]
    args[args.index("--to") + 1] = str(to)
    env = {"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(DOCS.parent)}
    proc = subprocess.run(
        [sys.executable, "-m", "judge.cli.main", *args],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stdout + proc.stderr == shown


def test_every_fetch_option_is_on_the_page_and_in_help(capsys) -> None:
    from eval.datasets.fetch.cli import register

    parser = argparse.ArgumentParser(prog="judge")
    register(parser.add_subparsers())
    fetch = parser._subparsers._group_actions[0].choices["datasets"]  # type: ignore[union-attr]
    action = fetch._subparsers._group_actions[0].choices["fetch"]  # type: ignore[union-attr]
    options = [o for a in action._actions for o in a.option_strings if o.startswith("--")]
    assert set(options) == {"--help", "--to", "--archive", "--mirror", "--keep-archives",
                            "--no-progress"}  # fmt: skip
    page = (DOCS / PAGE).read_text(encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["datasets", "fetch", "--help"])
    helptext = capsys.readouterr().out
    for option in options:
        assert option in helptext
        if option != "--help":
            assert re.search(rf"`[^`]*{option}\b", page), f"{option} is not on {PAGE}"
