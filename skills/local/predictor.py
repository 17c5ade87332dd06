"""Scores from an exemplar memory without a judge model: a few member predictors, chosen
per dimension by cross-validation on the exemplars a prediction may learn from.

Members (each fitted on the allowed exemplars only; their code is :mod:`skills.local.members`):
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
from skills.local.camera import camera_features
from skills.local.feature_cache import (
    cache_dir,
    exemplar_camera_features,
    exemplar_features,
    shipped,
)
from skills.local.image_features import image_features
from skills.local.members import RANKED, MemberPredictors, unit_rows
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
from skills.local.settings import config_key, member_filter, strategy

STRATEGIES = {"stack": stack, "best": select}

__all__ = ["Choice", "MemoryModel", "cache_dir", "exemplar_features", "memory_model"]

log = logging.getLogger("judge.local")
GROUP_KEYS = ("prompt_id", "task_id", "group")
CLASS_KEYS = ("generator", "backend")


class MemoryModel(MemberPredictors):
    """Per-memory member predictors, and per-dimension choices for each set of excluded
    exemplars (made once per exclusion, kept in memory and on disk)."""

    def __init__(self, memory: Memory, text_encoder: Any | None = None):
        self.memory = memory
        recs = memory.records
        self.ids = [r.id for r in recs]
        self.labels = {}
        for dim in memory.manifest.dimensions:
            y = np.array([r.scores.get(dim, np.nan) for r in recs], dtype=float)
            y.setflags(write=False)  # shared by every member and fold
            self.labels[dim] = y
        self.groups = np.array(
            [next((str(r.meta[k]) for k in GROUP_KEYS if k in r.meta), r.id) for r in recs]
        )
        self.k = int(min(20, max(3, len(recs) // 4)))
        self.spaces: dict[str, np.ndarray] = {"memory": unit_rows(np.asarray(memory.vectors))}
        self.feature_stats: tuple[np.ndarray, np.ndarray] | None = None
        self.text_encoder = text_encoder
        self._features: np.ndarray | None = None
        if memory.manifest.modality == "image":
            feats = exemplar_features(memory).astype(np.float64)
            mu, sd = feats.mean(0), feats.std(0) + 1e-6
            self.feature_stats = (mu, sd)
            self._features = (feats - mu) / sd  # labels play no part in this standardisation
            if text_encoder is not None and all(r.prompt for r in recs):
                self.spaces["prompt"] = unit_rows(text_encoder.encode([r.prompt for r in recs]))
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
        self._ridge_cache: dict[tuple[Any, ...], Any] = {}
        self._sibling_cache: dict[tuple[str, bytes], str | None] = {}

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
            q["memory"] = q["sibling"] = unit_rows(memory_vector.reshape(1, -1))[0]
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
        choices = self.choices(exclude)
        out = {}
        for dim in dims:
            if dim not in choices:
                continue
            y = self._y(dim)
            allowed = self._allowed(y, exclude)
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
        out (None when no dimension qualifies).

        Example::

            memory_model(avt_image).related_scale("realism")   # 'quality'
        """
        y = self._y(dim)
        return self.sibling(dim, self._allowed(y, exclude))

    def _allowed(self, y: np.ndarray, exclude: Iterable[str]) -> np.ndarray:
        """Rows a prediction may learn from: scored, and not excluded."""
        banned = set(exclude)
        return ~np.isnan(y) & np.array([i not in banned for i in self.ids])

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
