"""The member predictors of a memory model, each fitted on the rows it is allowed to see.

:class:`MemberPredictors` holds the per-memory data the members read (embedding spaces,
standardised image features, camera statistics, generator classes) and their small caches;
:class:`skills.local.predictor.MemoryModel` builds that data and chooses among the members.
Every member has the signature ``(space, query rows, labels, allowed mask, dimension) ->
one prediction per query row`` (:meth:`MemberPredictors._member`) and reads no label outside
``allowed``.

Example::

    model = MemoryModel(memory)        # a MemberPredictors
    model._member("memory", model._row_query("memory", rows), model._y("appeal"), train,
                  "appeal")
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from memory.memory import Memory
from skills.local.agreement import agreement_weights
from skills.local.image_features import FEATURE_NAMES
from skills.local.rank_member import rank_predict
from skills.local.settings import weighting
from skills.local.sibling import sibling_of

RANKED = {"brisque": FEATURE_NAMES.index("brisque"), "niqe": FEATURE_NAMES.index("niqe")}
FEATURE_MEMBERS = ("quality", "prototype", *RANKED)
TEMPERATURE = 0.05


def unit_rows(m: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (cosine similarity becomes a dot product)."""
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)


def train_mean(y: np.ndarray, w: np.ndarray, allowed: np.ndarray, n: int) -> np.ndarray:
    """The weighted mean score of the allowed rows, repeated for ``n`` queries: what a member
    predicts when it has nothing better to go on."""
    return np.full(n, float(np.average(y[allowed], weights=w[allowed])))


class MemberPredictors:
    """Member predictors over one memory's exemplars (data set up by the subclass)."""

    memory: Memory
    ids: list[str]
    labels: dict[str, np.ndarray]
    k: int
    spaces: dict[str, np.ndarray]
    classes: np.ndarray | None
    _features: np.ndarray | None
    _camera: np.ndarray | None
    _lock: threading.Lock
    _proto_cache: dict[frozenset[int], Any]
    _ridge_cache: dict[tuple[Any, ...], Any]
    _sibling_cache: dict[tuple[str, bytes], str | None]

    def _y(self, dim: str) -> np.ndarray:
        """The exemplars' scores on ``dim`` (``nan`` where unscored; read-only)."""
        got = self.labels.get(dim)
        return got if got is not None else np.full(len(self.ids), np.nan)

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
            return train_mean(y, w, allowed, len(z))
        clf = self._prototype(allowed)
        rows = [allowed & (self.classes == c) for c in clf.classes_]
        means = np.array([np.average(y[r], weights=w[r]) for r in rows])
        return clf.predict_proba(z) @ means

    def sibling(self, dim: str, allowed: np.ndarray) -> str | None:
        """The dimension that stands in for ``dim`` when fitted on the ``allowed`` rows
        (:func:`skills.local.sibling.sibling_of` on those rows only; cached per mask).

        Example::

            model.sibling("realism", model.groups != "p01")   # e.g. 'quality'
        """
        key = (dim, allowed.tobytes())
        with self._lock:
            if key in self._sibling_cache:
                return self._sibling_cache[key]
        got = sibling_of(dim, self.labels, allowed)
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
        return train_mean(y, self._weights(dim, y, allowed), allowed, len(np.atleast_2d(q)))

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
