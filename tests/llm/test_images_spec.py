"""load_backends: TOML [[backends]] entries, with errors that name the file and the entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval.t2i import BackendConfigError, BackendSpec, backends_from_env, load_backends


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "backends.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_loads_every_field(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
[study]
name = "ignored here"

[[backends]]
id = "dalle3"
model = "openai/dall-e-3"
api_key_env = "OPENAI_API_KEY"
size = "1024x1024"
concurrency = 2
extra = { quality = "hd", style = "natural" }

[[backends]]
id = "local-sdxl"
model = "openai/sdxl"
api_base = "http://127.0.0.1:7860/v1"
seed = 7
max_n = 1
timeout_s = 30
max_retries = 1
allow_private_urls = true

[[backends]]
id = "demo"
model = "builtin/renderer"
""",
    )
    specs = load_backends(path)
    assert list(specs) == ["dalle3", "local-sdxl", "demo"]
    assert specs["dalle3"].extra == {"quality": "hd", "style": "natural"}
    assert specs["dalle3"].concurrency == 2 and specs["dalle3"].api_key_env == "OPENAI_API_KEY"
    local = specs["local-sdxl"]
    assert (local.seed, local.max_n, local.timeout_s, local.max_retries) == (7, 1, 30.0, 1)
    assert local.allow_private_urls and local.api_base == "http://127.0.0.1:7860/v1"
    assert specs["demo"].is_builtin and specs["demo"].concurrency == 4


@pytest.mark.parametrize(
    ("entries", "needle"),
    [
        ('id = "a"\nmodel = "openai/x"\nsize_px = 5', "backends[0] (id 'a'): size_px: unknown key"),
        ('id = "a"', "backends[0] (id 'a'): model: Field required"),
        ('id = "a"\nmodel = "openai/x"\nsize = "big"', "size must look like '1024x1024'"),
        ('id = "a b"\nmodel = "openai/x"', "backends[0] (id 'a b'): id: use 1-64 letters"),
        ('id = "a"\nmodel = "openai/x"\napi_key_env = "sk-abc123-def"', "NAME of an environment"),
        ('id = "a"\nmodel = "openai/x"\nconcurrency = 0', "concurrency: Input should be greater"),
        ('id = "a"\nmodel = "builtin/painter"', "unknown built-in backend 'builtin/painter'"),
        ('id = "a"\nmodel = "openai/x"\napi_base = "localhost:7860"', "api_base must be an http"),
        ('id = "a"\nmodel = "m/x"\nextra = { n = 4, api_key = "k" }', "may not set api_key, n"),
    ],
)
def test_bad_entries_name_file_entry_and_field(tmp_path: Path, entries: str, needle: str) -> None:
    path = write(tmp_path, f"[[backends]]\n{entries}\n")
    with pytest.raises(BackendConfigError) as err:
        load_backends(path)
    assert str(path) in str(err.value) and needle in str(err.value)


def test_duplicate_ids_are_rejected(tmp_path: Path) -> None:
    text = '[[backends]]\nid = "a"\nmodel = "openai/x"\n' * 2
    with pytest.raises(BackendConfigError, match=r"backends\[1\] \(id 'a'\): duplicate id 'a'"):
        load_backends(write(tmp_path, text))


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[study]\nname = 'x'\n", "no [[backends]] entries"),
        ("backends = []\n", "expected at least one [[backends]] entry"),
        ("backends = [1]\n", "backends[0]: expected a table"),
        ("[[backends]\nid=", "not valid TOML"),
    ],
)
def test_bad_files(tmp_path: Path, text: str, needle: str) -> None:
    with pytest.raises(BackendConfigError, match=None) as err:
        load_backends(write(tmp_path, text))
    assert needle in str(err.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BackendConfigError, match="file not found"):
        load_backends(tmp_path / "nope.toml")


def test_spec_is_frozen_and_validates_in_code() -> None:
    spec = BackendSpec(id="x", model="openai/x")
    with pytest.raises(ValueError):
        spec.id = "y"  # type: ignore[misc]


def test_backends_from_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JUDGE_BACKENDS", raising=False)
    assert backends_from_env() == {}
    path = write(tmp_path, '[[backends]]\nid = "demo"\nmodel = "builtin/renderer"\n')
    monkeypatch.setenv("JUDGE_BACKENDS", str(path))
    assert list(backends_from_env()) == ["demo"]
    monkeypatch.setenv("JUDGE_BACKENDS", str(tmp_path / "missing.toml"))
    with pytest.raises(BackendConfigError, match=r"JUDGE_BACKENDS: .*missing\.toml: file not"):
        backends_from_env()


def test_for_model_derives_a_path_safe_id() -> None:
    spec = BackendSpec.for_model("vertex_ai/imagen-3.0:generate", size="512x512")
    assert spec.id == "vertex_ai-imagen-3.0-generate" and spec.size == "512x512"
    assert BackendSpec.for_model("builtin/renderer", id="demo").id == "demo"
