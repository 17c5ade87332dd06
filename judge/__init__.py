"""t2i-judge: an agentic judge for text-to-image work, from Python.

Score a prompt and its images (safety, 1–5 subjective scores, checklist pass rates):

    >>> import judge
    >>> result = judge.score("a red cube on a white table", [], model="mock/judge")
    >>> result.status
    'scored'

``model="mock/judge"`` is the bundled mock: it runs the whole pipeline with made-up answers
(no server, no key); its scores mean nothing. Leave ``model`` out to use the local backend
(packaged models, offline), or give any litellm model string with ``api_key``/``api_base``.

Jobs and their functions:

- :func:`score`, :func:`ascore` — a prompt and its images → ``Result``;
- :func:`compare` — two images of one prompt → ``ComparisonResult`` (with ``votes()``);
- :func:`edit` — a source image, an instruction and its edits → ``EditResult``;
- :func:`meta_eval` — your labelled data → how well the judge agrees with it;
- :func:`leaderboard` — votes or comparison results → ranked models with intervals;
- :data:`study` — ``study.run(...)`` and ``study.report(...)`` for prompter studies;
- :class:`Client`, :class:`AsyncClient` — a running service: score, compare, batches.

``pip install t2i-judge`` (the core) covers ``score``, ``compare`` and ``edit`` with a hosted
model, and the clients; a feature of an extra that is not installed (the local backend needs
``[local]``) raises :class:`MissingExtra`, whose message is one line naming the extra.

Every result has ``to_dict()`` (the JSON the CLI prints) and ``to_row()`` (a flat dict for a
dataframe). The engine itself is :class:`Judge` (``Judge(model=...).score(submission)``),
configured by :class:`JudgeSettings`; :class:`Result` and :class:`Submission` are the
contracts. These four load on first use, so ``import judge`` stays cheap.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge.packages import bind_own_packages

bind_own_packages()  # a user's eval.py beside their script must not stand in for ours

from judge.client import AsyncClient, Client, ServiceError  # noqa: E402
from judge.front import ascore, compare, edit, score  # noqa: E402
from skills.extras import MissingExtra, needs  # noqa: E402

if TYPE_CHECKING:  # loaded on first use by __getattr__ below; named here for type checkers
    from judge.config import JudgeSettings
    from judge.domain import Result, Submission
    from judge.engine import Judge

__all__ = [
    "AsyncClient",
    "Client",
    "Judge",
    "JudgeSettings",
    "MissingExtra",
    "Result",
    "ServiceError",
    "Submission",
    "ascore",
    "compare",
    "edit",
    "leaderboard",
    "meta_eval",
    "score",
    "study",
]

# The workflow functions below live in ``eval`` (a floor above the engine); this front door
# is the one engine module allowed to name them (tests/test_layering.py), and imports them
# only when called.


def meta_eval(data: str | Path, **options: Any) -> dict[str, Any]:
    """Score a labelled dataset and report how well the judge agrees with the labels.

    Same run as ``judge meta-eval`` (files in ``out``); see
    :func:`eval.metaeval.python_api.meta_eval` for every option. With your own CSV::

        report = judge.meta_eval("labels.csv", columns={"image": "file",
                                 "target.quality": "mos"}, cv="lopo", out="runs/mine")
        report["targets"]["quality"]["spearman"]
    """
    with needs("eval", "judge.meta_eval"):
        from eval.metaeval.python_api import meta_eval as run

        return run(data, **options)


def leaderboard(votes: Any, **options: Any) -> list[dict[str, Any]]:
    """Rank models from votes: a votes file (CSV or JSONL), vote dicts, or comparison results
    (``judge.compare(...)`` answers). One board per criterion; see
    :func:`eval.leaderboards.python_api.leaderboard` for the options (``method``, ``criterion``,
    ``bootstrap``, ``seed``, ``plots``).

        >>> import judge
        >>> votes = [{"prompt_id": "p1", "model_a": "x", "model_b": "y", "winner": "a",
        ...           "criterion": "preference"}]
        >>> judge.leaderboard(votes, bootstrap=0)[0]["models"][0]["model"]
        'x'
    """
    with needs("eval", "judge.leaderboard"):
        from eval.leaderboards.python_api import leaderboard as rank

        return rank(votes, **options)


class study:
    """Prompter studies: tasks × prompters × image backends, judged, then reported."""

    @staticmethod
    def run(study_file: str | Path, out: str | Path, **options: Any) -> dict[str, Any]:
        """Run (or resume) a study as ``judge study run`` does; returns ``run.json``.
        Options: ``concurrency``, ``max_cost``, ``url``, ``progress``."""
        with needs("eval", "judge.study.run"):
            from eval.studies.python_api import run

            return run(study_file, out, **options)

    @staticmethod
    def report(folder: str | Path, **options: Any) -> dict[str, Any]:
        """Write and return a study's report (cells, Kendall's W, groups, leaderboards).
        Options: ``bootstrap``, ``permutations``, ``seed``, ``plots``."""
        with needs("eval", "judge.study.report"):
            from eval.studies.python_api import report

            return report(folder, **options)


def __getattr__(name: str) -> Any:
    # The engine and its contracts load on first use (langgraph, litellm, pydantic).
    if name == "Judge":
        from judge.engine import Judge

        return Judge
    if name == "JudgeSettings":
        from judge.config import JudgeSettings

        return JudgeSettings
    if name in ("Result", "Submission"):
        from judge import domain

        return getattr(domain, name)
    raise AttributeError(name)
