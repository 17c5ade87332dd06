"""The engine's own CLI verbs, one register function per verb.

How to add a verb:

- a verb of this package: write ``judge/cli/NAME_cmd.py`` with ``register(sub)`` (adds the
  sub-parser and sets ``handler``) and append one line to :data:`REGISTRY`;
- a verb of another package (``api``, ``eval``, a plug-in of your own): write its
  ``register(sub)`` there and declare it in that package's ``pyproject.toml``::

      [project.entry-points."t2i_judge.commands"]
      my-verb = "my_package.cli:register"

  (see :mod:`judge.cli.plugins`). This package never imports ``api`` or ``eval``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from judge.cli import (
    bench_cmd,
    compare_cmd,
    edit_bench_cmd,
    memory_cmd,
    score_cmd,
    skills_cmd,
    t2i_bench_cmd,
)
from judge.modes.compare import bench as compare_bench

Register = Callable[[argparse._SubParsersAction], None]

REGISTRY: list[Register] = [
    score_cmd.register,
    compare_cmd.register,
    compare_bench.register,
    skills_cmd.register,
    memory_cmd.register,
    bench_cmd.register,
    edit_bench_cmd.register,
    t2i_bench_cmd.register,
]
