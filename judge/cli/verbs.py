"""Every top-level verb of the ``judge`` command, listed explicitly.

A verb is a user's job; where a job has several actions the verb is a noun group
(``judge memory build``, ``judge leaderboard rank``). The table names each verb's module by
string and imports it only when that verb runs, so ``judge --help`` imports nothing heavy and
this package never imports ``api`` or ``eval`` at import time (the layering stays one-way:
the CLI is the front door of the whole distribution, and only this table points upward).
Benchmarks are not verbs: they are ``python -m benchmarks.<name>`` (harness, not product).

How to add a verb: write a module with ``register(sub)`` (it adds one sub-parser named like
the verb and sets ``handler``), then add one line to the table here; a plugin adds one with
an entry point in ``t2i_judge.cli_verbs`` naming its ``register`` (docs/extending.md).

Example:
    >>> list(VERBS)[:3]
    ['score', 'compare', 'skills']
    >>> len(_BUILT_IN) <= 14
    True
    >>> find("probe").target
    'eval.probing.cli:register'
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from registry import Registry
from registry.core import load_target

Register = Callable[[argparse._SubParsersAction], None]

VERBS = Registry[Register]("verb", group="t2i_judge.cli_verbs")
"""Every verb's ``register`` function by name, in the order ``judge --help`` lists them."""


@dataclass(frozen=True)
class Verb:
    """One verb: its name, one line of help, and ``module:function`` that registers it."""

    name: str
    help: str
    target: str

    def load(self) -> Register:
        """Import the verb's module and return its register function."""
        return VERBS.get(self.name)


_BUILT_IN: tuple[Verb, ...] = (
    Verb("score", "score submissions (prompt-image or edit) and print Results",
         "judge.cli.score_cmd:register"),
    Verb("compare", "judge pairwise comparisons (both orders) and print ComparisonResults",
         "judge.cli.compare_cmd:register"),
    Verb("skills", "list skill cards (name, kind, modality, categories)",
         "judge.cli.skills_cmd:register"),
    Verb("memory", "exemplar memories: build, add, search, list, stats",
         "judge.cli.memory_cmd:register"),
    Verb("meta-eval", "score a labelled dataset and report agreement with its labels",
         "eval.metaeval.cli:register"),
    Verb("datasets", "list the public human-judgment sets; fetch one (fetch)",
         "eval.datasets.fetch.cli:register"),
    Verb("leaderboard", "rank models from pairwise votes (rank); pick items for humans "
         "(select); make votes files (votes)",
         "eval.leaderboards.cli:register"),
    Verb("study", "run prompt-proficiency studies and report on them",
         "eval.studies.cli:register"),
    Verb("tasks", "check task suites, generate checklists",
         "eval.tasks.cli:register"),
    Verb("probe", "adaptively probe a text-to-image model (run, override)",
         "eval.probing.cli:register"),
    Verb("campaign", "collect human labels in the browser, with quality control",
         "eval.campaigns.cli:register"),
    Verb("trust", "trust the judge where it has earned it: calibrate from people, apply, merge",
         "eval.trust.cli:register"),
    Verb("serve", "run the HTTP service (embedded Redis unless REDIS_URL)",
         "api.cli:register_serve"),
    Verb("worker", "run a job worker (needs the service's REDIS_URL)",
         "api.cli:register_worker"),
)  # fmt: skip
for _verb in _BUILT_IN:
    VERBS.add_lazy(_verb.name, _verb.target, help=_verb.help)

SETTINGS_REFERENCE = "api.configuration:known_variables"
"""Every ``JUDGE_*`` name any process reads (``module:function``), loaded by name like the
verbs: the list lives at the top of ``api``, which knows every settings model; the command
warns about any other name at start (:mod:`judge.env_check`)."""


def known_variables() -> frozenset[str]:
    """The names :data:`SETTINGS_REFERENCE` lists (imports the settings models, not the
    service)."""
    return load_target(SETTINGS_REFERENCE)()


def find(name: str) -> Verb:
    """The verb called ``name``; an :class:`registry.UnknownName` (a ``KeyError``) suggests
    the closest name on a typo. A plugin's verb says which distribution it comes from."""
    info = VERBS.info(name)
    help_ = info.get("help") or f"(from {VERBS.origin(name).removeprefix('plugin ')})"
    return Verb(name, help_, VERBS.target(name) or "")


def verbs() -> list[Verb]:
    """Every verb, built-in ones first in their table's order, then plugins'."""
    return [find(name) for name in VERBS]
