"""Scores from an exemplar memory without a judge model: a few member predictors, chosen
per dimension by cross-validation on the exemplars a prediction may learn from.

Members (each fitted on the allowed exemplars only):
- ``memory``: k-NN in the memory's own vectors (image or prompt embeddings, cosine);
- ``prompt``: k-NN in text embeddings of the exemplars' prompts (image memories whose
  exemplars carry the prompt they were generated from);
- ``quality``: ridge regression on weight-free image-quality features plus BRISQUE and NIQE
  (image memories; standardised features, penalty = number of rows);
- ``prototype``: when exemplars name the model that made them (``generator``/``backend``
  meta), a classifier over the image features recognises which model's *look* the image
  has and predicts the expected score of that look. It reads pixels only: the backend a
  submission declares is never used;
- opt-in ``brisque``, ``niqe``: each classic score alone, by its rank among the training exemplars
  (:mod:`skills.local.rank_member`);
- opt-in ``camera``: ridge regression on weight-free camera statistics (sensor noise, colour-filter
  and JPEG-grid traces, :mod:`skills.local.camera`);
- ``sibling``: k-NN in the memory's own vectors fitted on the scores of the most closely related
  other dimension of the memory (:mod:`skills.local.sibling`): a scale whose own labels teach
  poorly borrows the ordering of one that teaches well.

Exemplars whose raters disagreed (``score_sd``/``score_n``) pull every fit less
(:mod:`skills.local.agreement`) when ``JUDGE_LOCAL_WEIGHTS=agreement``. The default members
are ``memory``, ``prompt``, ``quality``, ``prototype`` and ``sibling``; ``JUDGE_LOCAL_MEMBERS``
names others (:mod:`skills.local.settings`).

A k-NN prediction is the softmax(similarity / T)-weighted mean of the k nearest exemplars'
scores. Which member (or the mean of all) is used, and its map back to 1–5, are chosen by
:mod:`skills.local.selection` on the *training* exemplars only: the whole memory when
scoring, the memory minus ``exclude`` under leave-one-group-out evaluation (nested: the
left-out labels reach neither the choice nor the fit). Choices are cached per memory version
and set of excluded ids, in memory and under ``JUDGE_CACHE_DIR``.

Example::

    model = memory_model(memory)
    model.predict(model.query_vectors(qvec, image, prompt), ["appeal"], exclude=set())
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Any

import numpy as np

from memory.memory import Memory
from skills.local.agreement import agreement_weights
from skills.local.camera import camera_features
from skills.local.feature_cache import (
    cache_dir,
    exemplar_camera_features,
    exemplar_features,
    shipped,
)
from skills.local.image_features import FEATURE_NAMES, image_features
from skills.local.rank_member import rank_predict
from skills.local.selection import (
    Choice,
    cache_path,
    exclusion_key,
    load_choices,
    member_oof,
    no_choice,
    save_choices,
    select,
    stack,
)
from skills.local.settings import config_key, member_filter, strategy, weighting
from skills.local.sibling import sibling_of

STRATEGIES = {"stack": stack, "best": select}
RANKED = {"brisque": FEATURE_NAMES.index("brisque"), "niqe": FEATURE_NAMES.index("niqe")}
FEATURE_MEMBERS = ("quality", "prototype", *RANKED)

__all__ = ["Choice", "MemoryModel", "cache_dir", "exemplar_features", "memory_model"]

log = logging.getLogger("judge.local")
GROUP_KEYS = ("prompt_id", "task_id", "group")
CLASS_KEYS = ("generator", "backend")
TEMPERATURE = 0.05


def _unit(m: np.ndarray) -> np.ndarray:
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)


class MemoryModel:
    """Per-memory member predictors, and per-dimension choices for each set of excluded
    exemplars (made once per exclusion, kept in memory and on disk)."""

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
        self._features: np.ndarray | None = None
        if memory.manifest.modality == "image":
            feats = exemplar_features(memory).astype(np.float64)
            mu, sd = feats.mean(0), feats.std(0) + 1e-6
            self.feature_stats = (mu, sd)
            self._features = (feats - mu) / sd  # labels play no part in this standardisation
            if text_encoder is not None and all(r.prompt for r in recs):
                self.spaces["prompt"] = _unit(text_encoder.encode([r.prompt for r in recs]))
        self.classes: np.ndarray | None = None
        if self._features is not None:
            key = next((k for k in CLASS_KEYS if all(k in r.meta for r in recs)), None)
            labels = np.array([str(r.meta[key]) for r in recs]) if key else None
            if labels is not None and 2 <= len(set(labels)) <= len(recs) // 3:
                self.classes = labels
        allowed = member_filter()
        self.members = [s for s in self.spaces if s in allowed]
        if "sibling" in allowed and len(memory.manifest.dimensions) > 1:
            self.members.append("sibling")
        if self._features is not None:
            self.members += [s for s in ("quality", *RANKED) if s in allowed]
            if self.classes is not None and "prototype" in allowed:
                self.members.append("prototype")
        self._camera: np.ndarray | None = None
        self.camera_stats: tuple[np.ndarray, np.ndarray] | None = None
        if self._features is not None and "camera" in allowed:
            cam = exemplar_camera_features(memory).astype(np.float64)
            self.camera_stats = (cam.mean(0), cam.std(0) + 1e-6)
            self._camera = (cam - self.camera_stats[0]) / self.camera_stats[1]
            self.members.append("camera")
        self._proto_cache: dict[frozenset[int], Any] = {}
        self._choices: dict[str, dict[str, Choice]] = {}
        self._lock = threading.Lock()
        self._key_locks: dict[str, threading.Lock] = {}
        self._ridge_cache: dict[tuple[bytes, bytes], Any] = {}
        self._sibling_cache: dict[tuple[str, bytes], str | None] = {}

    # -- members ----------------------------------------------------------------------------
    def _y(self, dim: str) -> np.ndarray:
        return np.array([r.scores.get(dim, np.nan) for r in self.memory.records], dtype=float)

    def _weights(self, dim: str, y: np.ndarray, allowed: np.ndarray) -> np.ndarray:
        """Rater-agreement weights of the ``allowed`` rows (all 1 unless
        ``JUDGE_LOCAL_WEIGHTS=agreement`` and every allowed exemplar has its rater spread)."""
        if weighting() != "agreement":
            return np.ones(len(y))
        var = [r.score_variance(dim) for r in self.memory.records]
        v = np.array([np.nan if x is None else x for x in var], dtype=float)
        return agreement_weights(v, y, allowed & ~np.isnan(y))

    def _knn(
        self, space: str, q: np.ndarray, y: np.ndarray, allowed: np.ndarray, dim: str
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Softmax-weighted k-NN for a block of queries ``q`` (rows): predictions, and the
        indices and similarities of each query's neighbours (best first)."""
        sims = np.atleast_2d(q) @ self.spaces[space].T
        sims = np.where(allowed[None, :], sims, -np.inf)
        k = int(min(self.k, allowed.sum()))
        top = np.argsort(-sims, axis=1)[:, :k]
        st = np.take_along_axis(sims, top, axis=1)
        w = np.exp((st - st[:, :1]) / TEMPERATURE) * self._weights(dim, y, allowed)[top]
        w /= w.sum(1, keepdims=True)
        return (w * y[top]).sum(1), top, st

    def _ridge(
        self, x: np.ndarray, z: np.ndarray, y: np.ndarray, w: np.ndarray, allowed: np.ndarray
    ) -> np.ndarray:
        """Ridge regression of ``y`` on the standardised rows ``x`` (weights ``w``); the
        penalty is picked by leave-one-out (generalised) cross-validation on the allowed rows
        alone."""
        from sklearn.linear_model import RidgeCV

        key = (x.shape[1], allowed.tobytes(), np.nan_to_num(y[allowed]).tobytes(), w.tobytes())
        with self._lock:
            fit = self._ridge_cache.get(key)
        if fit is None:
            n = int(allowed.sum())
            fit = RidgeCV(alphas=n * np.logspace(-2, 3, 11))
            fit.fit(x[allowed], y[allowed], sample_weight=w[allowed])
            with self._lock:
                if len(self._ridge_cache) > 512:
                    self._ridge_cache.clear()
                self._ridge_cache[key] = fit
        return fit.predict(np.atleast_2d(z))

    def _prototype(self, train: np.ndarray) -> Any:
        """A classifier of the exemplars' source model, fitted on the ``train`` rows."""
        from sklearn.linear_model import LogisticRegression

        key = frozenset(np.where(train)[0].tolist())
        with self._lock:
            clf = self._proto_cache.get(key)
        if clf is None:
            assert self._features is not None and self.classes is not None
            clf = LogisticRegression(C=1.0, max_iter=3000)
            clf.fit(self._features[train], self.classes[train])
            with self._lock:
                self._proto_cache[key] = clf
        return clf

    def _proto(
        self, z: np.ndarray, y: np.ndarray, w: np.ndarray, allowed: np.ndarray
    ) -> np.ndarray:
        assert self.classes is not None
        z = np.atleast_2d(z)
        if len(np.unique(self.classes[allowed])) < 2:
            return np.full(len(z), float(np.average(y[allowed], weights=w[allowed])))
        clf = self._prototype(allowed)
        rows = [allowed & (self.classes == c) for c in clf.classes_]
        means = np.array([np.average(y[r], weights=w[r]) for r in rows])
        return clf.predict_proba(z) @ means

    def sibling(self, dim: str, allowed: np.ndarray) -> str | None:
        """The dimension that stands in for ``dim`` when fitted on the ``allowed`` rows."""
        key = (dim, allowed.tobytes())
        with self._lock:
            if key in self._sibling_cache:
                return self._sibling_cache[key]
        ys = {d: self._y(d) for d in self.memory.manifest.dimensions}
        got = sibling_of(dim, ys, allowed)
        with self._lock:
            if len(self._sibling_cache) > 4096:
                self._sibling_cache.clear()
            self._sibling_cache[key] = got
        return got

    def _sibling_member(
        self, q: np.ndarray, y: np.ndarray, allowed: np.ndarray, dim: str
    ) -> np.ndarray:
        """k-NN on the memory's vectors, fitted on the sibling's scores of the allowed rows
        (the training mean of ``dim`` when no dimension qualifies)."""
        sib = self.sibling(dim, allowed)
        if sib is not None:
            ys = self._y(sib)
            rows = allowed & ~np.isnan(ys)
            if rows.sum() >= 2:
                return self._knn("memory", q, ys, rows, sib)[0]
        w = self._weights(dim, y, allowed)
        return np.full(len(np.atleast_2d(q)), float(np.average(y[allowed], weights=w[allowed])))

    def _member(
        self, space: str, q: np.ndarray, y: np.ndarray, allowed: np.ndarray, dim: str
    ) -> np.ndarray:
        if space == "sibling":
            return self._sibling_member(q, y, allowed, dim)
        w = self._weights(dim, y, allowed)
        if space == "quality":
            assert self._features is not None
            return self._ridge(self._features, q, y, w, allowed)
        if space == "camera":
            assert self._camera is not None
            return self._ridge(self._camera, q, y, w, allowed)
        if space == "prototype":
            return self._proto(q, y, w, allowed)
        if space in RANKED:
            assert self._features is not None
            col = self._features[:, RANKED[space]]
            return rank_predict(col[allowed], y[allowed], w[allowed], np.atleast_2d(q)[:, 0])
        return self._knn(space, q, y, allowed, dim)[0]

    def _row_query(self, space: str, rows: np.ndarray) -> np.ndarray:
        if space in FEATURE_MEMBERS:
            assert self._features is not None
            x = self._features[rows]
            return x[..., [RANKED[space]]] if space in RANKED else x
        if space == "camera":
            assert self._camera is not None
            return self._camera[rows]
        return self.spaces["memory" if space == "sibling" else space][rows]

    # -- nested selection -------------------------------------------------------------------
    def choices(self, exclude: Iterable[str] = ()) -> dict[str, Choice]:
        """Per dimension, the predictor chosen and fitted on the exemplars not in
        ``exclude`` (cached in memory and under ``JUDGE_CACHE_DIR``)."""
        excluded = set(exclude) & set(self.ids)
        key = f"{config_key()}-{exclusion_key(excluded)}"
        with self._lock:
            if key in self._choices:
                return self._choices[key]
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:  # concurrent queries of one exclusion compute it once
            with self._lock:
                if key in self._choices:
                    return self._choices[key]
            path = cache_path(cache_dir(), self.memory.manifest.checksum, key)
            got = load_choices(shipped(self.memory, path))
            stale = got is not None and any(
                s not in self.members for c in got.values() if c.usable for s in c.spaces
            )
            if got is None or stale or set(got) != set(self.memory.manifest.dimensions):
                train = np.array([i not in excluded for i in self.ids])
                got = {dim: self._select(dim, train) for dim in self.memory.manifest.dimensions}
                save_choices(path, got)
            with self._lock:
                self._choices[key] = got
            return got

    def _select(self, dim: str, train: np.ndarray) -> Choice:
        y = self._y(dim)
        rows = train & ~np.isnan(y)
        if len(np.unique(self.groups[rows])) < 3:
            return no_choice(int(rows.sum()))

        def member(space: str, allowed: np.ndarray, q: np.ndarray) -> np.ndarray:
            return self._member(space, self._row_query(space, q), y, allowed, dim)

        oof = member_oof(member, self.members, self.groups, rows)
        return STRATEGIES[strategy()](oof, y, rows, self._weights(dim, y, rows))

    # -- queries ----------------------------------------------------------------------------
    def query_vectors(
        self, memory_vector: np.ndarray | None, image: Any | None, prompt: str | None
    ) -> dict[str, np.ndarray]:
        """The query in every space this memory has."""
        q: dict[str, np.ndarray] = {}
        if memory_vector is not None:
            q["memory"] = q["sibling"] = _unit(memory_vector.reshape(1, -1))[0]
        if self._features is not None and image is not None and self.feature_stats is not None:
            mu, sd = self.feature_stats
            z = (image_features(image) - mu) / sd
            q["quality"] = q["prototype"] = z
            for name, col in RANKED.items():
                q[name] = z[[col]]
        if self._camera is not None and image is not None and self.camera_stats is not None:
            q["camera"] = (camera_features(image) - self.camera_stats[0]) / self.camera_stats[1]
        if "prompt" in self.spaces and prompt and self.text_encoder is not None:
            q["prompt"] = self.text_encoder.encode([prompt], role="query")[0]
        return q

    def predict(
        self, query: dict[str, np.ndarray], dims: list[str], exclude: set[str]
    ) -> dict[str, tuple[float, Choice, list[tuple[str, float]]]]:
        """Per dimension: the 1–5 estimate, the predictor used, and its nearest exemplars.
        Selection and fit see only the exemplars not in ``exclude``."""
        banned = np.array([i in exclude for i in self.ids])
        choices = self.choices(exclude)
        out = {}
        for dim in dims:
            if dim not in choices:
                continue
            y = self._y(dim)
            allowed = ~np.isnan(y) & ~banned
            choice = choices[dim]
            if not choice.usable or not all(s in query for s in choice.spaces) or not allowed.any():
                continue
            preds = [float(self._member(s, query[s], y, allowed, dim)[0]) for s in choice.spaces]
            space = next((s for s in choice.spaces if s in self.spaces), None)
            space = space or next((s for s in self.spaces if s in query), None)
            neighbours: list[tuple[str, float]] = []
            if space is not None:
                _, top, sims = self._knn(space, query[space], y, allowed, dim)
                neighbours = [
                    (self.ids[t], float(v)) for t, v in zip(top[0][:3], sims[0][:3], strict=True)
                ]
            est = choice.combine(preds)
            out[dim] = (round(min(5.0, max(1.0, est)), 2), choice, neighbours)
        return out

    def related_scale(self, dim: str, exclude: Iterable[str] = ()) -> str | None:
        """The dimension the ``sibling`` member of ``dim`` learns from, with ``exclude`` left
        out (None when no dimension qualifies)."""
        banned = set(exclude)
        allowed = np.array([i not in banned for i in self.ids]) & ~np.isnan(self._y(dim))
        return self.sibling(dim, allowed)

    def why_not(self, dim: str, exclude: Iterable[str] = ()) -> str:
        """Why ``dim`` gets no estimate from this memory."""
        choice = self.choices(exclude).get(dim)
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
