"""Real photographs available offline and the edits the metric tests build from them.

Photos: scikit-image's bundled samples (astronaut — a face, chelsea, coffee, rocket) and
matplotlib's bundled portrait of Grace Hopper (a second, different person), plus one AVT
dev image when the shared data folder is present.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from matplotlib import cbook
from PIL import Image, ImageDraw, ImageFont
from skimage import data

AVT_DEV = Path(__file__).resolve().parents[3] / "shared" / "data" / "avt-dev"


def photo(name: str) -> Image.Image:
    """A scikit-image sample photo as RGB."""
    return Image.fromarray(getattr(data, name)()).convert("RGB")


def hopper() -> Image.Image:
    """Grace Hopper's portrait (matplotlib sample data), RGB 512x600."""
    with cbook.get_sample_data("grace_hopper.jpg") as fh:
        return Image.open(fh).convert("RGB")


def jpeg(img: Image.Image, quality: int = 85) -> Image.Image:
    """A JPEG round trip (re-encode)."""
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    buf.seek(0)
    return Image.open(buf).convert("RGB")


def yellow_tint(img: Image.Image) -> Image.Image:
    """Warmer and yellower: red up a little, blue down, a small lift."""
    a = np.asarray(img, np.float32) * np.array([1.05, 1.0, 0.8]) + np.array([10, 8, 0])
    return Image.fromarray(a.clip(0, 255).astype(np.uint8))


def hue_rotate(img: Image.Image, steps: int = 85) -> Image.Image:
    """Hue rotated by ``steps``/256 of a turn (85 ≈ 120°)."""
    hsv = np.asarray(img.convert("HSV")).copy()
    hsv[..., 0] = (hsv[..., 0].astype(int) + steps) % 256
    return Image.fromarray(hsv, "HSV").convert("RGB")


def crop(img: Image.Image, px: int = 4) -> Image.Image:
    """``px`` pixels cut from every border (a different size: the metrics resize it)."""
    return img.crop((px, px, img.width - px, img.height - px))


def paste_patch(img: Image.Image) -> Image.Image:
    """A photo of a cat pasted over part of the background."""
    out = img.copy()
    out.paste(photo("chelsea").resize((160, 120)), (330, 20))
    return out


def overlay_text(img: Image.Image, text: str, size: int = 48) -> Image.Image:
    """A white sign with ``text`` in PIL's bundled font near the bottom left."""
    out = img.copy()
    draw = ImageDraw.Draw(out)
    font = ImageFont.load_default(size=size)
    width = draw.textlength(text, font=font)
    draw.rectangle((20, 420, 40 + width, 430 + size * 1.4), fill="white")
    draw.text((30, 425), text, font=font, fill="black")
    return out


def swap_face(img: Image.Image) -> Image.Image:
    """The astronaut's face replaced by Grace Hopper's (pasted over the same box)."""
    out = img.copy()
    face = hopper().crop((150, 100, 400, 380)).resize((120, 134))
    out.paste(face, (160, 60))
    return out


@pytest.fixture(scope="session")
def astronaut() -> Image.Image:
    return photo("astronaut")


@pytest.fixture(scope="session")
def tiny_dinov2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random DINOv2 saved to a folder (as tests/memory/test_encoders.py builds it)."""
    import torch
    import transformers

    folder = tmp_path_factory.mktemp("models") / "tiny-dinov2"
    config = transformers.Dinov2Config(
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        image_size=32,
        patch_size=8,
    )
    torch.manual_seed(0)
    transformers.Dinov2Model(config).save_pretrained(folder)
    processor_cls = getattr(transformers, "BitImageProcessorPil", transformers.BitImageProcessor)
    processor_cls(
        size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}, do_center_crop=True
    ).save_pretrained(folder)
    return folder
