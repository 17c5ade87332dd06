"""Fixtures for the meta-evaluation tests: tiny AVT-layout splits built from the real dev split.

The images are the dev split's own images, downscaled to 96 px once per session so that memory
building (EfficientNet-Lite0 on CPU) and scoring stay fast; labels.csv, ratings.csv and
iqa_baselines.csv are the dev split's rows for those images, with the real header.
"""

from __future__ import annotations

import csv
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from eval.metaeval.meta_eval import MetaEvalConfig, run_meta_eval
from tests.fakes.hf_hub import FakeHub
from tests.fakes.provider import FakeProvider

AVT_DEV = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "avt-dev"
EXPERT = Path(__file__).resolve().parent / "fixtures" / "expert"
GENERATORS = ("craiyon", "dall-e", "glide", "stable_diffusion")
POOL_PROMPTS = ("p01", "p03", "p05", "p07")
AVT_SKILLS = ["avt_prompt_matching", "avt_appeal", "avt_realism", "avt_quality"]


def read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def write_csv(path: Path, header: list[str], rows: Iterable[dict[str, Any]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)
    return path


def require_dev() -> Path:
    if not (AVT_DEV / "labels.csv").is_file():
        pytest.fail(f"{AVT_DEV} is missing: the tests expect ../shared beside the repository")
    return AVT_DEV


@pytest.fixture(scope="session")
def avt_pool(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A full AVT folder (4 prompts x 4 generators) with downscaled copies of the dev images."""
    dev = require_dev()
    pool = tmp_path_factory.mktemp("avt-pool")
    header, rows = read_csv(dev / "labels.csv")
    keep = [r for r in rows if r["prompt_id"] in POOL_PROMPTS and r["generator"] in GENERATORS]
    assert len(keep) == len(POOL_PROMPTS) * len(GENERATORS)
    for r in keep:
        dst = pool / r["image"]
        dst.parent.mkdir(parents=True, exist_ok=True)
        with Image.open(dev / r["image"]) as img:
            img.convert("RGB").resize((96, 96), Image.Resampling.BILINEAR).save(dst)
    write_csv(pool / "labels.csv", header, keep)
    images = {r["image"] for r in keep}
    for name in ("ratings.csv", "iqa_baselines.csv"):
        h, rs = read_csv(dev / name)
        write_csv(pool / name, h, [r for r in rs if r["image"] in images])
    shutil.copy(dev / "prompts.csv", pool / "prompts.csv")
    return pool


@pytest.fixture
def make_split(avt_pool: Path) -> Callable[..., Path]:
    """``make_split(dst, prompt_ids, blank_appeal2=())``: an AVT folder with those prompts."""

    def factory(dst: Path, prompt_ids: Iterable[str], blank_appeal2: Iterable[str] = ()) -> Path:
        prompt_ids, blank = set(prompt_ids), set(blank_appeal2)
        header, rows = read_csv(avt_pool / "labels.csv")
        keep = [r for r in rows if r["prompt_id"] in prompt_ids]
        for r in keep:
            if r["image"] in blank:
                r["appeal2_mean"] = ""
            (dst / r["image"]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(avt_pool / r["image"], dst / r["image"])
        write_csv(dst / "labels.csv", header, keep)
        images = {r["image"] for r in keep}
        for name in ("ratings.csv", "iqa_baselines.csv"):
            h, rs = read_csv(avt_pool / name)
            write_csv(dst / name, h, [r for r in rs if r["image"] in images])
        shutil.copy(avt_pool / "prompts.csv", dst / "prompts.csv")
        return dst

    return factory


# The scored split (two prompts x four generators; one image lacks study 2's appeal) and the
# split its exemplar memory is built from (two other prompts).
BLANK_APPEAL2 = ("images/glide/p03.png",)


@pytest.fixture
def split_a(tmp_path: Path, make_split: Callable[..., Path]) -> Path:
    return make_split(tmp_path / "split-a", ["p01", "p03"], blank_appeal2=BLANK_APPEAL2)


@pytest.fixture
def split_b(tmp_path: Path, make_split: Callable[..., Path]) -> Path:
    return make_split(tmp_path / "split-b", ["p05", "p07"])


@pytest.fixture
def meta_eval(provider: FakeProvider) -> Callable[..., dict]:
    """``meta_eval(data, out, **config)``: run_meta_eval against the fake provider."""

    def run(data: Path, out: Path, dataset: str = "avt", **kwargs: Any) -> dict:
        overrides = {
            "api_base": provider.base_url,
            "api_key": "test-key",
            "safety": False,
            "backoff_base_s": 0.001,
            "backoff_max_s": 0.01,
            **kwargs.pop("overrides", {}),
        }
        cfg = MetaEvalConfig(
            dataset=dataset,
            data=data,
            out=out,
            model="openai/fake",
            overrides=overrides,
            progress=False,
            n_boot=kwargs.pop("n_boot", 50),
            **kwargs,
        )
        return run_meta_eval(cfg)

    return run


def cli_args(provider: FakeProvider, *args: str | Path) -> list[str]:
    """``judge meta-eval`` arguments wired to the fake provider (no safety calls)."""
    return [
        "meta-eval",
        *map(str, args),
        "--model",
        "openai/fake",
        "--api-base",
        provider.base_url,
        "--api-key",
        "test-key",
        "--no-safety",
        "--n-boot",
        "50",
    ]


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHub]:
    """The stand-in, with the Hub reachable (offline mode off) for this test only."""
    from huggingface_hub import constants

    with FakeHub() as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        monkeypatch.setenv("HF_HUB_OFFLINE", "0")
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
        # whatever the library would send on its own goes to the stand-in too
        template = server.url + "/{repo_id}/resolve/{revision}/{filename}"
        monkeypatch.setattr(constants, "ENDPOINT", server.url)
        monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)
        monkeypatch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
        yield server
