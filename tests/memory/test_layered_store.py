"""User data outside the package: the user data folder, and memories layered over the
shipped read-only ones (building or adding to a shipped name writes a user copy)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from api.core.settings import ServiceSettings
from judge.config import data_home, user_data_dir
from memory.exemplar import load_exemplars
from memory.store import SHIPPED_DIR, MemoryStore, default_store_dir

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "exemplars"
DESIGN_MEMORIES = ["prompt-OE", "prompt-CO", "prompt-IM", "image-OE", "image-CO"]


@pytest.fixture
def clean_data_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ("JUDGE_HOME", "XDG_DATA_HOME", "JUDGE_MEMORY_DIR", "JUDGE_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def tree_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(folder)).encode() + p.read_bytes())
    return h.hexdigest()


def test_data_home_precedence(clean_data_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = clean_data_env / "home"
    assert data_home() == home / ".local" / "share" / "t2i-judge"
    monkeypatch.setenv("XDG_DATA_HOME", str(clean_data_env / "xdg"))
    assert data_home() == clean_data_env / "xdg" / "t2i-judge"
    monkeypatch.setenv("JUDGE_HOME", str(clean_data_env / "jh"))
    assert data_home() == clean_data_env / "jh"
    assert user_data_dir("runs") == clean_data_env / "jh" / "runs"
    assert default_store_dir() == clean_data_env / "jh" / "memories"
    assert ServiceSettings().data_dir == clean_data_env / "jh" / "service"
    monkeypatch.setenv("JUDGE_DATA_DIR", str(clean_data_env / "svc"))
    monkeypatch.setenv("JUDGE_MEMORY_DIR", str(clean_data_env / "mem"))
    assert ServiceSettings().data_dir == clean_data_env / "svc"
    assert default_store_dir() == clean_data_env / "mem"


def test_nothing_defaults_to_a_folder_inside_the_checkout(clean_data_env: Path) -> None:
    for path in (ServiceSettings().data_dir, default_store_dir(), user_data_dir("runs")):
        assert not path.resolve().is_relative_to(REPO), path


def test_the_default_store_reads_the_shipped_memories_and_writes_elsewhere(
    clean_data_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = MemoryStore()
    assert store.root == clean_data_env / "home" / ".local" / "share" / "t2i-judge" / "memories"
    assert store.read_only == [SHIPPED_DIR]
    assert "avt-image" in store.names() and store.exists("avt-image")
    assert store.load("avt-image").folder.parent == SHIPPED_DIR / "avt-image"
    monkeypatch.setenv("JUDGE_MEMORY_DIR", str(clean_data_env / "alone"))
    assert not MemoryStore().exists("avt-image")  # a named store is used alone
    assert MemoryStore(clean_data_env / "x").read_only == []


@pytest.mark.slow
def test_adding_to_a_read_only_memory_writes_a_user_copy(tmp_path: Path) -> None:
    shipped, user = tmp_path / "shipped", tmp_path / "user"
    MemoryStore(shipped).build(
        "image-CO", load_exemplars(EXAMPLES / "image-CO.jsonl")[:2], base_dir=EXAMPLES
    )
    before = tree_digest(shipped)
    layered = MemoryStore(user, read_only=[shipped])
    assert layered.names() == ["image-CO"]
    mem = layered.add(
        "image-CO", load_exemplars(EXAMPLES / "image-CO.jsonl")[2:], base_dir=EXAMPLES
    )
    assert mem.folder.parent == user / "image-CO" and mem.manifest.count == 4
    assert tree_digest(shipped) == before, "the read-only store was written to"
    for record in mem.records:  # the copied records' images still resolve
        assert mem.image_path(record).is_file(), record.image
    assert MemoryStore(user, read_only=[shipped]).load("image-CO").manifest.count == 4
    assert MemoryStore(shipped).load("image-CO").manifest.count == 2


def test_example_exemplar_files_cover_the_designs_memories_and_say_what_they_are() -> None:
    assert "not expert data" in (EXAMPLES / "README.md").read_text()
    for name in DESIGN_MEMORIES:
        records = load_exemplars(EXAMPLES / f"{name}.jsonl")
        modality, category = name.split("-")
        assert records and {r.modality for r in records} == {modality}
        assert {r.category for r in records} == {category}
        assert all("format example" in r.meta.get("note", "") for r in records)
        for r in records:
            if r.image:
                assert (EXAMPLES / r.image).is_file()
    more = load_exemplars(EXAMPLES / "more-prompt-CO.jsonl")
    ids = {r.id for r in load_exemplars(EXAMPLES / "prompt-CO.jsonl")}
    assert more and not ids & {r.id for r in more}
    for line in (EXAMPLES / "prompt-CO.jsonl").read_text().splitlines():
        json.loads(line)  # one object per line
