"""Votes of one criterion as arrays: model and prompt indices, outcomes, win matrices.

``W[i, j]`` counts the wins of model ``i`` over model ``j``, a tie adding 0.5 to both ``W[i, j]``
and ``W[j, i]``. :meth:`Tally.prompt_matrix` holds the same counts per prompt (sparse, one row
per prompt) so that a bootstrap over prompts is one sparse product per block of resamples.

Example:
    >>> from eval.leaderboards.votes import Vote
    >>> t = Tally.from_votes([Vote("p", "x", "y", "a", "c"), Vote("q", "x", "y", "tie", "c")])
    >>> t.models, t.wins().tolist()
    (['x', 'y'], [[0.0, 1.5], [0.5, 0.0]])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from eval.leaderboards.votes import Vote

_OUTCOME = {"a": 1.0, "b": 0.0, "tie": 0.5}

MAX_MODELS = 2000
"""The most models one criterion's board ranks. The methods hold (models x models) matrices
(win counts, rank probabilities, the hybrid fit's covariance) and the JSON board a win-rate
table of that size: 2,000 models are 4 million cells a matrix (32 MB); 20,000 would be 3.2 GB
each. More models are refused before any matrix is built (:func:`check_models`)."""


def check_models(n_models: int, criterion: str | None) -> None:
    """Refuse a board of more than :data:`MAX_MODELS` models, naming the count and what to do.

    >>> check_models(3, "preference")
    """
    if n_models > MAX_MODELS:
        raise ValueError(
            f"the votes for criterion {criterion!r} name {n_models} models; a board ranks at "
            f"most {MAX_MODELS} (its matrices grow with the square of the models): rank a "
            "subset of the models, or fix the model names if they were not meant to differ"
        )


@dataclass
class Tally:
    """Index arrays of a set of votes (all of one criterion)."""

    models: list[str]
    prompts: list[str]
    prompt: np.ndarray  # (n,) prompt index of each vote
    a: np.ndarray  # (n,) model index of side a
    b: np.ndarray  # (n,) model index of side b
    outcome: np.ndarray  # (n,) 1 = a won, 0 = b won, 0.5 = tie

    @classmethod
    def from_votes(cls, votes: Sequence[Vote]) -> Tally:
        """Index the votes; models and prompts in sorted order."""
        models = sorted({v.model_a for v in votes} | {v.model_b for v in votes})
        check_models(len(models), votes[0].criterion if votes else None)
        prompts = sorted({v.prompt_id for v in votes})
        mi = {m: i for i, m in enumerate(models)}
        pi = {p: i for i, p in enumerate(prompts)}
        return cls(
            models=models,
            prompts=prompts,
            prompt=np.fromiter((pi[v.prompt_id] for v in votes), np.int64, len(votes)),
            a=np.fromiter((mi[v.model_a] for v in votes), np.int64, len(votes)),
            b=np.fromiter((mi[v.model_b] for v in votes), np.int64, len(votes)),
            outcome=np.fromiter((_OUTCOME[v.winner] for v in votes), float, len(votes)),
        )

    @property
    def n_models(self) -> int:
        return len(self.models)

    def _cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row index, flat cell i*M+j, weight) of every win entry, ties split in halves."""
        m = self.n_models
        rows = np.concatenate([self.prompt, self.prompt])
        cells = np.concatenate([self.a * m + self.b, self.b * m + self.a])
        weight = np.concatenate([self.outcome, 1.0 - self.outcome])
        keep = weight > 0
        return rows[keep], cells[keep], weight[keep]

    def wins(self) -> np.ndarray:
        """The (M, M) win matrix over all votes."""
        _, cells, weight = self._cells()
        m = self.n_models
        return np.bincount(cells, weights=weight, minlength=m * m).reshape(m, m)

    def prompt_matrix(self) -> sparse.csr_matrix:
        """Sparse (prompts, M*M) matrix: the flattened win matrix of every prompt."""
        rows, cells, weight = self._cells()
        shape = (len(self.prompts), self.n_models**2)
        return sparse.csr_matrix((weight, (rows, cells)), shape=shape)

    def record(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Wins, losses and ties of every model (counts of votes)."""
        m = self.n_models
        decisive = self.outcome != 0.5
        winner = np.where(self.outcome == 1.0, self.a, self.b)[decisive]
        loser = np.where(self.outcome == 1.0, self.b, self.a)[decisive]
        tied = np.concatenate([self.a[~decisive], self.b[~decisive]])
        return (
            np.bincount(winner, minlength=m),
            np.bincount(loser, minlength=m),
            np.bincount(tied, minlength=m),
        )

    def groups(self) -> np.ndarray:
        """Group label per model: models in different groups are linked by no chain of
        comparisons (the comparison graph is disconnected)."""
        w = self.wins()
        _, labels = connected_components(sparse.csr_matrix(w + w.T > 0), directed=False)
        return labels


def strongly_connected(w: np.ndarray) -> np.ndarray:
    """Whether every model can be reached from every other along "beat" edges, per matrix.

    This is the condition for the Bradley–Terry maximum-likelihood scores to exist (no group
    of models that never lost to the rest). ``w`` is (M, M) or (B, M, M); returns bool or (B,).

    >>> bool(strongly_connected(np.array([[0, 1.0], [1.0, 0]])))
    True
    >>> bool(strongly_connected(np.array([[0, 2.0], [0, 0]])))
    False
    """
    reach = (np.asarray(w) > 0).astype(np.float32)
    m = reach.shape[-1]
    reach = np.minimum(reach + np.eye(m, dtype=np.float32), 1.0)
    for _ in range(int(np.ceil(np.log2(max(m, 2))))):
        reach = np.minimum(reach @ reach, 1.0)
    return np.all(reach > 0, axis=(-2, -1))
