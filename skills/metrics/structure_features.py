"""Patch features for ``structure_distance``: DINOv2 keys or EfficientNet-Lite0 feature maps.

* DINOv2 (a local folder or a hub id already cached; loaded with the code of
  :mod:`memory.encoders.dinov2`): the *keys* of the last attention layer for every patch
  token (CLS and register tokens dropped), following Tumanyan et al., whose self-similarity
  of DINO-ViT keys captures structure and not appearance. Input: a square of 16 × 16 patches.
* EfficientNet-Lite0 (packaged weights, the offline default): the output of the last
  stride-16 block (112 channels) on a 224 × 224 input, a 14 × 14 grid. Mid-level CNN maps
  keep layout while being less tied to colour than early layers.

Both images go through one batched forward pass. Models are loaded once per process.

Example:
    >>> encoder_id(None)
    'efficientnet-lite0:block10@224'
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from PIL import Image

from skills.local.common import shared_model
from skills.metrics.cache import get, image_key, put

EFFNET_SIZE = 224
EFFNET_BLOCK = 10  # last block of the 112-channel stage (stride 16)
DINO_GRID = 16
_TF_MEAN, _TF_STD = 127.0 / 255, 128.0 / 255


def encoder_id(dinov2: str | None) -> str:
    """The id of the feature extractor used for a given option."""
    if dinov2:
        name = str(dinov2).rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
        return f"dinov2:{name}@last-keys"
    return f"efficientnet-lite0:block{EFFNET_BLOCK}@{EFFNET_SIZE}"


def _pixels(images: list[Image.Image], size: int, mean: Any, std: Any) -> np.ndarray:
    arrays = [
        np.asarray(img.convert("RGB").resize((size, size), Image.Resampling.BILINEAR), np.float32)
        for img in images
    ]
    batch = (np.stack(arrays) / 255.0 - np.asarray(mean, np.float32)) / np.asarray(std, np.float32)
    return np.ascontiguousarray(batch.transpose(0, 3, 1, 2), dtype=np.float32)


def _effnet() -> Any:
    from memory.encoders.efficientnet import EfficientNetLiteEncoder

    return EfficientNetLiteEncoder().model


def effnet_patches(images: list[Image.Image]) -> np.ndarray:
    """EfficientNet-Lite0 block features, ``(n_images, 196, 112)``."""
    import torch

    model = shared_model("metrics:effnet-lite0", _effnet)
    x = torch.from_numpy(_pixels(images, EFFNET_SIZE, _TF_MEAN, _TF_STD))
    with torch.inference_mode():
        x = model._swish(model._bn0(model._conv_stem(x)))
        for block in model._blocks[: EFFNET_BLOCK + 1]:
            x = block(x)
    return x.flatten(2).transpose(1, 2).float().numpy()


class _Dino:
    def __init__(self, path: str) -> None:
        from memory.encoders.dinov2 import Dinov2Encoder

        enc = Dinov2Encoder(path)
        self.model = enc.model
        self.mean = getattr(enc.processor, "image_mean", [0.485, 0.456, 0.406])
        self.std = getattr(enc.processor, "image_std", [0.229, 0.224, 0.225])
        config = self.model.config
        self.patch = int(config.patch_size)
        self.skip = 1 + int(getattr(config, "num_register_tokens", 0) or 0)
        last = self.model.encoder.layer[-1]
        keys = [m for n, m in last.named_modules() if n.rsplit(".", 1)[-1] in {"k_proj", "key"}]
        if not keys:
            raise ValueError(f"{path!r}: no key projection found in the last DINOv2 layer")
        self.key = keys[0]
        self.lock = threading.Lock()  # the key hook is per call: one forward at a time


def dino_patches(images: list[Image.Image], path: str) -> np.ndarray:
    """Last-layer attention keys of DINOv2 patch tokens, ``(n_images, 256, dim)``."""
    import torch

    dino = shared_model(f"metrics:dinov2:{path}", lambda: _Dino(path))
    captured: list[torch.Tensor] = []
    x = torch.from_numpy(_pixels(images, dino.patch * DINO_GRID, dino.mean, dino.std))
    with dino.lock:
        hook = dino.key.register_forward_hook(lambda _m, _i, out: captured.append(out))
        try:
            with torch.inference_mode():
                dino.model(pixel_values=x)
        finally:
            hook.remove()
    return captured[-1][:, dino.skip :, :].float().numpy()


def _extract(images: list[Image.Image], dinov2: str | None) -> np.ndarray:
    return dino_patches(images, dinov2) if dinov2 else effnet_patches(images)


def patch_features(images: list[Image.Image], dinov2: str | None) -> np.ndarray:
    """Patch features of each image with the selected extractor.

    Images seen recently (a best-of-n source) come from :mod:`skills.metrics.cache`; the
    others go through one batched forward pass.
    """
    kind = f"patches:{encoder_id(dinov2)}"
    keys = [image_key(img) for img in images]
    found = [get(kind, key) for key in keys]
    todo = [i for i, f in enumerate(found) if f is None]
    if todo:
        for i, feats in zip(todo, _extract([images[i] for i in todo], dinov2), strict=True):
            found[i] = feats
            put(kind, keys[i], feats)
    return np.stack(found)
