"""Scores from an exemplar memory without a judge model: k-NN predictors, chosen per
dimension by leave-one-group-out cross-validation on the memory itself.

Spaces a neighbour can be found in (each L2-normalised, cosine similarity):
- ``memory``: the memory's own vectors (image embeddings, or prompt embeddings);
- ``features``: weight-free image-quality features (image memories; standardised);
- ``prompt``: text embeddings of the exemplars' prompts (image memories whose exemplars
  carry the prompt they were generated from);
- ``prototype``: when exemplars name the model that made them (``generator``/``backend``
  meta), a classifier over the image features recognises which model's *look* the image
  has and predicts the expected score of that look. It reads pixels only: the backend a
  submission declares is never used.

A k-NN prediction is the softmax(similarity / T)-weighted mean of the k nearest exemplars'
scores. For every dimension, each non-empty combination of spaces (the mean of their
predictions) is scored by leave-one-group-out Spearman ρ on the memory (a group is the
exemplar's ``prompt_id``/``task_id`` meta, else the exemplar itself); the best one is
kept, and a linear map fitted on its out-of-group predictions puts it back on the 1–5 scale.

Example::

    model = memory_model(memory)
    model.predict({"memory": qvec, "features": fvec}, ["appeal"], exclude=set())
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from memory.memory import Memory, open_image
from skills.local.image_features import VERSION as FEATURES_VERSION
from skills.local.image_features import image_features

log = logging.getLogger("judge.local")
GROUP_KEYS = ("prompt_id", "task_id", "group")
CLASS_KEYS = ("generator", "backend")
TEMPERATURE = 0.05


def cache_dir() -> Path:
    """Where derived data is cached: ``$JUDGE_CACHE_DIR`` or ``~/.cache/t2i-judge``."""
    return Path(os.environ.get("JUDGE_CACHE_DIR") or Path.home() / ".cache" / "t2i-judge")


def exemplar_features(memory: Memory) -> np.ndarray:
    """Image features of every exemplar, cached on disk by the memory's checksum."""
    path = cache_dir() / f"features-{FEATURES_VERSION}-{memory.manifest.checksum[:24]}.npy"
    try:
        cached = np.load(path)
        if cached.shape[0] == len(memory.records):
            return cached
    except (OSError, ValueError):
        pass
    feats = np.stack([image_features(open_image(memory.image_path(r))) for r in memory.records])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
        np.save(tmp, feats)
        os.replace(tmp, path)
    except OSError as exc:  # a read-only home only costs the recomputation next time
        log.info("could not cache exemplar features: %s", exc)
    return feats


def _unit(m: np.ndarray) -> np.ndarray:
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)


@dataclass(frozen=True)
class Choice:
    """The predictor kept for one dimension: member spaces, their standardisation, and the
    linear map of the mean standardised prediction back to the 1–5 scale."""

    spaces: tuple[str, ...]
    intercept: float
    slope: float
    cv_spearman: float | None
    n: int
    centre: tuple[float, ...] = ()
    scale: tuple[float, ...] = ()

    @property
    def usable(self) -> bool:
        """False when cross-validation found no positive signal: then nothing is estimated."""
        return self.slope > 0 and self.cv_spearman is not None and self.cv_spearman > 0

    def combine(self, preds: list[float]) -> float:
        """Standardise each member's prediction, average, map to the score scale."""
        z = [(p - c) / s for p, c, s in zip(preds, self.centre, self.scale, strict=True)]
        return self.intercept + self.slope * float(np.mean(z))

    @property
    def label(self) -> str:
        """Human-readable: ``k-NN on memory+features``."""
        return "k-NN on " + "+".join(self.spaces)


class MemoryModel:
    """Per-memory k-NN spaces and per-dimension predictor choices (built once)."""

    def __init__(self, memory: Memory, text_encoder: Any | None = None):
        self.memory = memory
        recs = memory.records
        self.ids = [r.id for r in recs]
        self.groups = np.array(
            [next((str(r.meta[k]) for k in GROUP_KEYS if k in r.meta), r.id) for r in recs]
        )
        self.k = int(min(20, max(3, len(recs) // 4)))
        self.spaces: dict[str, np.ndarray] = {"memory": _unit(np.asarray(memory.vectors))}
        self.feature_stats: tuple[np.ndarray, np.ndarray] | None = None
        self.text_encoder = text_encoder
        if memory.manifest.modality == "image":
            feats = exemplar_features(memory)
            mu, sd = feats.mean(0), feats.std(0) + 1e-6
            self.feature_stats = (mu, sd)
            self.spaces["features"] = _unit((feats - mu) / sd)
            if text_encoder is not None and all(r.prompt for r in recs):
                self.spaces["prompt"] = _unit(text_encoder.encode([r.prompt for r in recs]))
        self.classes: np.ndarray | None = None
        self._features: np.ndarray | None = None
        self._proto_cache: dict[frozenset[int], Any] = {}
        if "features" in self.spaces:
            key = next((k for k in CLASS_KEYS if all(k in r.meta for r in recs)), None)
            labels = np.array([str(r.meta[key]) for r in recs]) if key else None
            if labels is not None and 2 <= len(set(labels)) <= len(recs) // 3:
                self.classes = labels
                self._features = (feats - mu) / sd
        self.choices: dict[str, Choice] = {}
        for dim in memory.manifest.dimensions:
            self.choices[dim] = self._choose(dim)

    # -- k-NN -------------------------------------------------------------------------------
    def _scores(self, dim: str) -> tuple[np.ndarray, np.ndarray]:
        y = np.array([r.scores.get(dim, np.nan) for r in self.memory.records], dtype=float)
        return y, ~np.isnan(y)

    def _knn(
        self, space: str, q: np.ndarray, y: np.ndarray, allowed: np.ndarray
    ) -> tuple[float, np.ndarray, np.ndarray]:
        sims = self.spaces[space] @ q
        sims = np.where(allowed, sims, -np.inf)
        k = int(min(self.k, allowed.sum()))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top])]
        w = np.exp((sims[top] - sims[top].max()) / TEMPERATURE)
        w /= w.sum()
        return float(w @ y[top]), top, sims[top]

    def _prototype(self, train: np.ndarray) -> Any:
        """A classifier of the exemplars' source model, fitted on the ``train`` rows."""
        from sklearn.linear_model import LogisticRegression

        key = frozenset(np.where(train)[0].tolist())
        if key not in self._proto_cache:
            assert self._features is not None and self.classes is not None
            clf = LogisticRegression(C=1.0, max_iter=3000)
            self._proto_cache[key] = clf.fit(self._features[train], self.classes[train])
        return self._proto_cache[key]

    def _proto_predict(self, fvec: np.ndarray, y: np.ndarray, allowed: np.ndarray) -> float:
        assert self.classes is not None
        train = allowed & np.isin(self.classes, np.unique(self.classes[allowed]))
        if len(np.unique(self.classes[train])) < 2:
            return float(np.nanmean(y[allowed]))
        clf = self._prototype(train)
        probs = clf.predict_proba(fvec.reshape(1, -1))[0]
        means = np.array([y[train & (self.classes == c)].mean() for c in clf.classes_])
        return float(probs @ means)

    def _choose(self, dim: str) -> Choice:
        y, has = self._scores(dim)
        idx = np.where(has)[0]
        spaces = list(self.spaces) + (["prototype"] if self.classes is not None else [])
        cv = {s: np.full(len(y), np.nan) for s in spaces}
        for i in idx:
            allowed = has & (self.groups != self.groups[i])
            if allowed.sum() < 2:
                continue
            for s in spaces:
                if s == "prototype":
                    assert self._features is not None
                    cv[s][i] = self._proto_predict(self._features[i], y, allowed)
                else:
                    cv[s][i] = self._knn(s, self.spaces[s][i], y, allowed)[0]
        stats = {s: (float(np.nanmean(cv[s])), float(np.nanstd(cv[s])) or 1.0) for s in spaces}
        zs = {s: (cv[s] - stats[s][0]) / stats[s][1] for s in spaces}
        best: tuple[float, tuple[str, ...], np.ndarray] | None = None
        for r in range(1, len(spaces) + 1):
            for combo in itertools.combinations(spaces, r):
                pred = np.mean([zs[s] for s in combo], axis=0)
                ok = has & ~np.isnan(pred)
                if ok.sum() < 5 or np.std(pred[ok]) == 0:
                    continue
                rho = float(spearmanr(pred[ok], y[ok])[0])
                if best is None or rho > best[0] + 1e-9:
                    best = (rho, combo, pred)
        if best is None:  # nothing could be cross-validated: no estimate (see ``usable``)
            return Choice(
                ("memory",),
                3.0,
                0.0,
                None,
                int(has.sum()),
                (0.0,),
                (1.0,),
            )
        rho, combo, pred = best
        ok = has & ~np.isnan(pred)
        slope, intercept = np.polyfit(pred[ok], y[ok], 1)
        if slope <= 0:  # never invert a ranking: a flat map says "no signal"
            slope, intercept = 0.0, float(y[ok].mean())
        return Choice(
            combo,
            float(intercept),
            float(slope),
            round(rho, 4),
            int(ok.sum()),
            tuple(stats[s][0] for s in combo),
            tuple(stats[s][1] for s in combo),
        )

    # -- queries ----------------------------------------------------------------------------
    def query_vectors(
        self, memory_vector: np.ndarray | None, image: Any | None, prompt: str | None
    ) -> dict[str, np.ndarray]:
        """The query in every space this memory has."""
        q: dict[str, np.ndarray] = {}
        if memory_vector is not None:
            q["memory"] = _unit(memory_vector.reshape(1, -1))[0]
        if "features" in self.spaces and image is not None and self.feature_stats is not None:
            mu, sd = self.feature_stats
            z = ((image_features(image) - mu) / sd).reshape(1, -1)
            q["features"] = _unit(z)[0]
            if self.classes is not None:
                q["prototype"] = z[0]
        if "prompt" in self.spaces and prompt and self.text_encoder is not None:
            q["prompt"] = self.text_encoder.encode([prompt], role="query")[0]
        return q

    def predict(
        self, query: dict[str, np.ndarray], dims: list[str], exclude: set[str]
    ) -> dict[str, tuple[float, Choice, list[tuple[str, float]]]]:
        """Per dimension: the 1–5 estimate, the predictor used, and its nearest exemplars."""
        banned = np.array([i in exclude for i in self.ids])
        out = {}
        for dim in dims:
            if dim not in self.choices:
                continue
            y, has = self._scores(dim)
            allowed = has & ~banned
            choice = self.choices[dim]
            if not choice.usable or not all(s in query for s in choice.spaces) or not allowed.any():
                continue
            spaces = list(choice.spaces)
            preds, neighbours = [], []
            for s in spaces:
                if s == "prototype":
                    preds.append(self._proto_predict(query[s], y, allowed))
                    continue
                value, top, sims = self._knn(s, query[s], y, allowed)
                preds.append(value)
                if not neighbours:
                    neighbours = [
                        (self.ids[t], float(v)) for t, v in zip(top[:3], sims[:3], strict=True)
                    ]
            if not neighbours:  # a prototype-only estimate: show the closest in feature space
                space = "features" if "features" in query else next(iter(query))
                if space in self.spaces:
                    _, top, sims = self._knn(space, query[space], y, allowed)
                    neighbours = [
                        (self.ids[t], float(v)) for t, v in zip(top[:3], sims[:3], strict=True)
                    ]
            est = choice.combine(preds)
            out[dim] = (round(min(5.0, max(1.0, est)), 2), choice, neighbours)
        return out

    def why_not(self, dim: str) -> str:
        """Why ``dim`` gets no estimate from this memory."""
        choice = self.choices.get(dim)
        if choice is None:
            return f"memory {self.memory.name!r} has no scores for {dim!r}"
        if choice.cv_spearman is None:
            return (
                f"memory {self.memory.name!r} is too small or uniform to validate an "
                f"estimate for {dim!r}"
            )
        return (
            f"memory {self.memory.name!r} shows no signal for {dim!r} (leave-one-group-out "
            f"Spearman {choice.cv_spearman:.2f})"
        )


_MODELS: dict[str, MemoryModel] = {}
_LOCK = threading.Lock()


def memory_model(memory: Memory, text_encoder: Any | None = None) -> MemoryModel:
    """The (cached) model of one memory version."""
    key = f"{memory.folder}:{memory.manifest.checksum}"
    with _LOCK:
        if key not in _MODELS:
            _MODELS[key] = MemoryModel(memory, text_encoder)
        return _MODELS[key]
