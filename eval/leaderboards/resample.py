"""Bootstrap over prompts: every resample draws the prompts with replacement and keeps all the
votes of each drawn prompt.

A resample is a vector of prompt multiplicities (how often each prompt was drawn); the win
matrix of the resample is that vector times the per-prompt win matrix, so a block of ``k``
resamples is one sparse product. Resamples depend only on ``(n_prompts, n_boot, seed)``.

Example:
    >>> from eval.leaderboards.votes import Vote
    >>> from eval.leaderboards.tally import Tally
    >>> t = Tally.from_votes([Vote("p", "x", "y", "a", "c"), Vote("q", "x", "y", "b", "c")])
    >>> w = np.concatenate(list(boot_wins(t, n_boot=5, seed=0)))
    >>> w.shape, bool(np.all(w.sum(axis=(1, 2)) == 2))
    ((5, 2, 2), True)
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from eval.leaderboards.tally import Tally

_CELLS = 4_000_000  # prompt-count cells materialised per block


def prompt_counts(n_prompts: int, n_boot: int, seed: int | None) -> Iterator[np.ndarray]:
    """Blocks of (k, n_prompts) draw counts, ``n_boot`` rows in total."""
    rng = np.random.default_rng(seed)
    step = max(1, min(n_boot, _CELLS // max(n_prompts, 1)))
    done = 0
    while done < n_boot:
        k = min(step, n_boot - done)
        idx = rng.integers(0, n_prompts, size=(k, n_prompts))
        flat = (idx + np.arange(k)[:, None] * n_prompts).ravel()
        yield np.bincount(flat, minlength=k * n_prompts).reshape(k, n_prompts)
        done += k


def boot_wins(tally: Tally, n_boot: int, seed: int | None) -> Iterator[np.ndarray]:
    """Blocks of (k, M, M) win matrices, one per resample of the prompts."""
    per_prompt = tally.prompt_matrix().T.tocsr()  # (M*M, P)
    m = tally.n_models
    for counts in prompt_counts(len(tally.prompts), n_boot, seed):
        flat = per_prompt @ counts.T.astype(float)  # (M*M, k)
        yield np.ascontiguousarray(flat.T).reshape(-1, m, m)


def boot_votes(tally: Tally, n_boot: int, seed: int | None) -> Iterator[np.ndarray]:
    """Per resample, the indices of its votes (every drawn prompt's votes, once per draw)."""
    for block in prompt_counts(len(tally.prompts), n_boot, seed):
        for row in block:
            yield np.repeat(np.arange(tally.prompt.size), row[tally.prompt])


def percentile_ci(samples: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """(M, 2) percentile interval per column of a (B, M) array (nan rows skipped)."""
    return np.nanquantile(samples, [alpha / 2, 1 - alpha / 2], axis=0).T


def rank_probabilities(samples: np.ndarray) -> np.ndarray:
    """(M, M) share of resamples in which model ``i`` took rank ``r + 1`` (higher = better).

    >>> rank_probabilities(np.array([[2.0, 1.0], [2.0, 1.0], [1.0, 2.0], [3.0, 0.0]])).tolist()
    [[0.75, 0.25], [0.25, 0.75]]
    """
    b, m = samples.shape
    ranks = np.argsort(np.argsort(-samples, axis=1, kind="stable"), axis=1)
    probs = np.zeros((m, m))
    np.add.at(probs, (np.tile(np.arange(m), b), ranks.ravel()), 1.0)
    return probs / max(b, 1)
