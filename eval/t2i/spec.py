"""A T2I backend entry (``[[backends]]`` of a study file or of ``JUDGE_BACKENDS``) and its loader.

A backend names an image model: any litellm image model string (``openai/gpt-image-1``,
``openai/dall-e-3``, ``vertex_ai/imagen-3.0-generate-002``, ``bedrock/...``), an
OpenAI-images-compatible server by ``api_base`` (``model = "openai/<name>"``), or the
deterministic ``builtin/renderer`` (not a model; for demos and tests). Keys never sit in the
file: ``api_key_env`` names the environment variable that holds the key.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "backends.toml"
    >>> _ = p.write_text('[[backends]]\\nid = "demo"\\nmodel = "builtin/renderer"\\n')
    >>> load_backends(p)["demo"].model
    'builtin/renderer'
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from registry import Registry, UnknownName

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def check_entry_id(v: str) -> str:
    """An entry's ``id`` (a backend's, an editor's, a writer's): 1-64 letters, digits, '_', '-'
    or '.', starting alphanumeric.

    Example:
        >>> check_entry_id("gpt-image.1")
        'gpt-image.1'
    """
    if not _ID.match(v):
        raise ValueError("use 1-64 letters, digits, '_', '-' or '.', starting alphanumeric")
    return v


EntryId = Annotated[str, AfterValidator(check_entry_id)]
"""A ``str`` field checked by :func:`check_entry_id`."""
_SIZE = re.compile(r"^[1-9][0-9]{0,4}x[1-9][0-9]{0,4}$")
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RESERVED_EXTRA = frozenset(
    {"model", "prompt", "n", "size", "seed", "api_base", "api_key", "client", "timeout",
     "max_retries", "num_retries", "drop_params"}
)  # fmt: skip
"""Keys ``extra`` may not set: the backend's own fields (or the generator) decide them."""
ENV_VAR = "JUDGE_BACKENDS"
"""The service's variable naming its backends file."""


class BackendConfigError(ValueError):
    """A backends file the loader cannot accept; the message names the file and the entry."""


class BackendSpec(BaseModel):
    """One T2I backend. Unknown keys are rejected (a typo must not silently do nothing).

    ``extra`` is passed to the provider call as is (e.g. ``quality``, ``style``,
    ``response_format``). ``max_n`` caps images per provider call (default: known caps such as
    dall-e-3's 1, else 10); more are fetched by repeated calls. ``allow_private_urls`` lets the
    generator fetch ``url`` results from loopback/private addresses and plain http (off: only
    https to public addresses, as for submitted images).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: EntryId
    model: str = Field(min_length=1)
    api_base: str | None = None
    api_key_env: str | None = None
    size: str | None = None
    seed: int | None = None
    concurrency: int = Field(default=4, ge=1, le=256)
    extra: dict[str, Any] = Field(default_factory=dict)
    max_n: int | None = Field(default=None, ge=1, le=100)
    timeout_s: float = Field(default=180.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=20)
    allow_private_urls: bool = False

    @classmethod
    def builtin_models(cls) -> tuple[Registry[Any], str]:
        """The in-process models this kind of spec may name (``builtin/…`` and plugins'), and
        what to call one in an error (a subclass such as the edit workflow's ``EditorSpec``
        names its own)."""
        from eval.t2i.builtin import RENDERERS

        return RENDERERS, "backend"

    @field_validator("model")
    @classmethod
    def _check_model(cls, v: str) -> str:
        if v.startswith("builtin/"):
            builtins, what = cls.builtin_models()
            if v not in builtins:
                raise ValueError(str(UnknownName(f"built-in {what}", v, builtins.names())))
        return v

    @field_validator("extra")
    @classmethod
    def _check_extra(cls, v: dict[str, Any]) -> dict[str, Any]:
        clash = sorted(RESERVED_EXTRA & set(v))
        if clash:
            raise ValueError(
                f"extra may not set {', '.join(clash)}: use the backend's own fields "
                "(size, seed, api_base, api_key_env, timeout_s, max_retries) instead"
            )
        return v

    @field_validator("size")
    @classmethod
    def _check_size(cls, v: str | None) -> str | None:
        if v is not None and not _SIZE.match(v):
            raise ValueError(f"size must look like '1024x1024' (WIDTHxHEIGHT), got {v!r}")
        return v

    @field_validator("api_key_env")
    @classmethod
    def _check_env(cls, v: str | None) -> str | None:
        if v is not None and not _ENV.match(v):
            raise ValueError(
                f"api_key_env is the NAME of an environment variable (e.g. OPENAI_API_KEY), "
                f"got {v[:12]!r}... (never put the key itself in the file)"
            )
        return v

    @field_validator("api_base")
    @classmethod
    def _check_base(cls, v: str | None) -> str | None:
        if v is not None and not v.startswith(("http://", "https://")):
            raise ValueError(f"api_base must be an http(s) URL, got {v!r}")
        return v

    @classmethod
    def for_model(cls, model: str, **fields: Any) -> BackendSpec:
        """A backend for ``model`` whose id is derived from it (``openai/dall-e-3`` →
        ``openai-dall-e-3``), e.g. for a probe's ``--backend MODEL``.

        Example:
            >>> BackendSpec.for_model("openai/dall-e-3", api_key_env="OPENAI_API_KEY").id
            'openai-dall-e-3'
        """
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", model).strip("-._")[:64] or "backend"
        return cls(id=fields.pop("id", slug), model=model, **fields)

    @property
    def is_builtin(self) -> bool:
        """True for a model drawn in this process (a built-in or a plugin's: no network, no
        key)."""
        return self.model.startswith("builtin/") or self.model in self.builtin_models()[0]


def _describe(err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        loc = ".".join(str(x) for x in e["loc"]) or "entry"
        msg = "unknown key (check the spelling)" if e["type"] == "extra_forbidden" else e["msg"]
        parts.append(f"{loc}: {msg.removeprefix('Value error, ')}")
    return "; ".join(parts)


def parse_backends(
    entries: Any,
    where: str,
    *,
    spec_cls: type[BackendSpec] = BackendSpec,
    section: str = "backends",
) -> dict[str, BackendSpec]:
    """Validate a list of ``[[backends]]`` tables (from a file already read); ids unique.
    ``spec_cls`` and ``section`` read another kind of entry the same way (``[[editors]]``)."""
    if not isinstance(entries, list) or not entries:
        raise BackendConfigError(f"{where}: expected at least one [[{section}]] entry")
    specs: dict[str, BackendSpec] = {}
    for i, entry in enumerate(entries):
        label = f"{where}: {section}[{i}]"
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            label += f" (id {entry['id']!r})"
        if not isinstance(entry, dict):
            raise BackendConfigError(f"{label}: expected a table of keys")
        try:
            spec = spec_cls.model_validate(entry)
        except ValidationError as err:
            raise BackendConfigError(f"{label}: {_describe(err)}") from None
        if spec.id in specs:
            raise BackendConfigError(f"{label}: duplicate id {spec.id!r}; ids are unique")
        specs[spec.id] = spec
    return specs


def load_backends(
    path: Path, *, spec_cls: type[BackendSpec] = BackendSpec, section: str = "backends"
) -> dict[str, BackendSpec]:
    """Read a TOML file's ``[[backends]]`` entries (or ``[[section]]`` ones as ``spec_cls``),
    by id; errors name the file and the entry.

    Other top-level tables (``[study]``, ``[[prompters]]``, …) are left to their own readers.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BackendConfigError(f"{path}: file not found") from None
    except OSError as exc:
        raise BackendConfigError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise BackendConfigError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise BackendConfigError(f"{path}: not valid TOML ({exc})") from None
    if section not in data:
        raise BackendConfigError(f"{path}: no [[{section}]] entries")
    return parse_backends(data[section], str(path), spec_cls=spec_cls, section=section)


def backends_from_env() -> dict[str, BackendSpec]:
    """The backends of the file named by ``$JUDGE_BACKENDS`` (``{}`` when it is unset)."""
    from eval.t2i.settings import backends_file

    path = backends_file()
    if not path:
        return {}
    try:
        return load_backends(Path(path))
    except BackendConfigError as exc:
        raise BackendConfigError(f"{ENV_VAR}: {exc}") from None
