"""The packaged ``avt-image`` memory ships its predictor choices (read before any user cache):
they must be the ones the current code computes under the default settings.

The choices are derived from float32 encoder outputs (MiniLM text vectors, EfficientNet image
features) whose last bits depend on the CPU's kernels, and the statistics fitted on them carry
that through (a 4e-5 relative difference was seen between two machines). So the continuous
fields are compared at 1e-3 relative: far tighter than any real change to the selection code
moves them, and looser than what float32 kernels guarantee across machines. Which members are
kept (``spaces``) is discrete and compared exactly."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memory.encoders import DEFAULT_TEXT_ENCODER, get_encoder
from memory.memory import Memory
from skills.local.predictor import MemoryModel
from skills.local.selection import cache_path, load_choices, save_choices
from skills.local.settings import config_key

REPO = Path(__file__).resolve().parents[2]
STORE = REPO / "memory" / "shipped" / "avt-image"


pytestmark = pytest.mark.usefixtures("predictor_defaults")


@pytest.mark.slow
def test_shipped_choices_match_a_recomputation(tmp_path: Path):
    version = STORE / (STORE / "CURRENT").read_text().strip()
    shipped_memory = Memory.open(version)
    name = cache_path(Path("."), shipped_memory.manifest.checksum, f"{config_key()}-all").name
    shipped = load_choices(version / "derived" / name)
    assert shipped is not None, (
        f"{version}/derived lacks {name}: the code that computes choices changed (its key is in"
        " the name); re-derive them: PYTHONPATH=. python -m tests.local.test_shipped_choices"
    )
    fresh = recomputed(tmp_path)
    assert set(fresh) == set(shipped)
    for dim, choice in fresh.items():
        want = dataclasses.asdict(shipped[dim])
        assert choice.spaces == shipped[dim].spaces, dim
        for field, value in dataclasses.asdict(choice).items():
            if field != "spaces":
                assert value == pytest.approx(want[field], rel=1e-3, abs=1e-4), (dim, field)


def recomputed(tmp: Path) -> dict:
    """The choices the current code computes for a copy of the shipped memory, in a fresh
    process, as :func:`rederive` computes the shipped file: a process that ran other tests
    holds their encoder vectors and fitted models, whose last bits can move a statistic past
    the tolerance (seen once in a parallel run, in no run alone)."""
    out = tmp / "fresh-choices.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_LOCAL_")}
    env.update(JUDGE_CACHE_DIR=str(tmp / "cache"), PYTHONPATH=str(REPO))
    code = (
        "from tests.local.test_shipped_choices import compute; "
        f"compute({str(tmp)!r}, {str(out)!r})"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    fresh = load_choices(out)
    assert fresh is not None, f"{out} was not written"
    return fresh


def compute(tmp: str, out: str) -> None:
    """Compute the choices for a copy of the shipped memory under ``tmp`` into ``out``."""
    version = STORE / (STORE / "CURRENT").read_text().strip()
    copy = Path(tmp) / version.name
    shutil.copytree(version, copy, ignore=shutil.ignore_patterns("choices-*"))
    fresh = MemoryModel(Memory.open(copy), get_encoder(DEFAULT_TEXT_ENCODER)).choices()
    save_choices(Path(out), fresh)


def rederive() -> Path:
    """Recompute the shipped choices with the current code (default settings, a throwaway
    cache) and write them into the memory's ``derived/`` folder, replacing the old file."""
    import tempfile

    for var in ("JUDGE_LOCAL_MEMBERS", "JUDGE_LOCAL_WEIGHTS", "JUDGE_LOCAL_SELECTION"):
        os.environ.pop(var, None)
    version = STORE / (STORE / "CURRENT").read_text().strip()
    memory = Memory.open(version)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["JUDGE_CACHE_DIR"] = str(Path(tmp) / "cache")
        compute(tmp, str(Path(tmp) / "fresh.json"))
        fresh = load_choices(Path(tmp) / "fresh.json")
        assert fresh is not None
    for old in (version / "derived").glob("choices-*.json"):
        old.unlink()
    path = cache_path(version / "derived", memory.manifest.checksum, f"{config_key()}-all")
    save_choices(path, fresh)
    return path


if __name__ == "__main__":
    print(rederive())
