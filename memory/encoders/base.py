"""The encoder interface every memory encoder implements.

An encoder maps texts or images to L2-normalised float32 vectors, so inner product is
cosine similarity. ``id`` names the model *and* everything that changes its vectors
(prefixes, truncation); a memory records it and refuses queries from another encoder.

Example:
    >>> import numpy as np
    >>> class Constant(Encoder):
    ...     id, modality, dim = "const", "text", 2
    ...     def _encode(self, items, role):
    ...         return np.ones((len(items), 2), dtype=np.float32)
    >>> Constant().encode(["a", "b"]).astype(float).round(3).tolist()
    [[0.707, 0.707], [0.707, 0.707]]
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Literal

import numpy as np

Role = Literal["query", "document"]


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Row-normalise to unit length (zero rows stay zero)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class Encoder(ABC):
    """Texts (``modality == "text"``) or PIL images (``"image"``) to unit vectors."""

    id: str
    modality: Literal["text", "image"]
    dim: int

    def encode(self, items: list[Any], role: Role = "document") -> np.ndarray:
        """Encode ``items`` as a ``(len(items), dim)`` float32 array of unit vectors.

        ``role`` matters for asymmetric models (e.g. Nomic's query/document prefixes):
        memories store documents and are searched with queries.
        """
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        return l2_normalise(self._encode(list(items), role))

    @abstractmethod
    def _encode(self, items: list[Any], role: Role) -> np.ndarray:
        """Raw (not necessarily normalised) vectors."""
