"""DINOv2 image encoder through transformers (the paper's image memory encoder).

Loads ``facebook/dinov2-*`` (or any DINOv2 checkpoint: a local folder saved with
``save_pretrained``, or a hub id already in the local cache) with ``AutoModel`` and its
``AutoImageProcessor``, and returns the pooled output (``pooler_output``: the final
layer-normed CLS token), ``hidden_size`` dimensions (384 small, 768 base, 1024 large,
1536 giant). The id is ``"dinov2:<model name>@pooler"`` with the folder or repo basename,
so the same model gives the same id on every machine. Usage::

    enc = Dinov2Encoder("/models/dinov2-giant")  # or "facebook/dinov2-giant" if cached
    vectors = enc.encode([Image.open("a.png")])  # (1, 1536), unit rows

Through the registry: ``get_encoder("dinov2:/models/dinov2-giant")``.

    >>> Dinov2Encoder.make_id("/models/dinov2-giant")
    'dinov2:dinov2-giant@pooler'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from memory.encoders.base import Encoder, Role
from memory.encoders.loading import BATCH_SIZE, ModelSource, batched, load_or_explain, model_source

if TYPE_CHECKING:
    from transformers import PreTrainedModel

POOLING = "pooler"


class Dinov2Encoder(Encoder):
    """DINOv2 ``pooler_output`` for PIL images, on CPU, in batches."""

    modality = "image"

    def __init__(self, model_name_or_path: str, *, batch_size: int = BATCH_SIZE) -> None:
        source = model_source(str(model_name_or_path))
        self.batch_size = batch_size
        self.name = source.name
        self.id = self.make_id(source.name)
        self.processor, self.model = _load(source)
        self.dim = int(self.model.config.hidden_size)

    @staticmethod
    def make_id(model_name_or_path: str) -> str:
        """The id for a model reference: family, basename, pooling."""
        name = str(model_name_or_path).rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
        return f"dinov2:{name}@{POOLING}"

    def _encode(self, items: list[Any], role: Role) -> np.ndarray:
        import torch

        out = []
        with torch.inference_mode():
            for chunk in batched(items, self.batch_size):
                inputs = self.processor(
                    images=[img.convert("RGB") for img in chunk], return_tensors="pt"
                )
                output = self.model(pixel_values=inputs["pixel_values"])
                out.append(output.pooler_output.float().numpy())
        return np.concatenate(out).astype(np.float32)


def _load(source: ModelSource) -> tuple[Any, PreTrainedModel]:
    try:
        from transformers import AutoImageProcessor, AutoModel
    except ImportError as exc:
        raise ImportError("DINOv2 encoders need 'transformers' (pip install transformers)") from exc

    def load(ref: str) -> tuple[Any, PreTrainedModel]:
        model = AutoModel.from_pretrained(ref)
        processor = AutoImageProcessor.from_pretrained(ref)
        return processor, model

    processor, model = load_or_explain(load, source, "dinov2")
    model_type = getattr(model.config, "model_type", "")
    if not model_type.startswith("dinov2"):
        raise ValueError(f"{source.ref!r} is a {model_type!r} model, not DINOv2")
    model.to("cpu")
    model.eval()
    return processor, model


def dinov2(arg: str | None) -> Dinov2Encoder:
    """Registry factory: ``dinov2:<path-or-hub-id>``."""
    if not arg:
        raise ValueError("'dinov2' needs a model: 'dinov2:<path-or-hub-id>', e.g. a local folder")
    return Dinov2Encoder(arg)
