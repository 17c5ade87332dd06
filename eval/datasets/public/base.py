"""What every public human-judgment set gives meta-evaluation: one small interface.

A public set is a dataset adapter (:class:`eval.datasets.base.Dataset`) that reads the set's
published files exactly as downloaded, plus four things the report and the docs use:

- ``files``: the files and folders expected under ``--data`` (:class:`ExpectedFile`); a
  folder that lacks one gets :class:`LayoutError` naming the missing file and the whole
  expected layout;
- ``strata``: the slice keys a ``--limit N --seed S`` subset is stratified by;
- :meth:`PublicSet.baselines`: the figures the set's papers publish, quoted from
  ``baselines.json`` with their citation and split (never recomputed here);
- :meth:`PublicSet.extra_report`: the set's own statistics, as its paper reports them.

Reading helpers (:func:`load_json`, :class:`JsonPath`) make every error name the file and
the key (or line) and field at fault.

Example:
    >>> files = (ExpectedFile("genai_image.json", "ratings"),
    ...          ExpectedFile("MODEL/ID.jpeg", "images", per_item=True))
    >>> err = LayoutError.missing(Path("/data/genai"), "genai_image.json", files)
    >>> print(err)  # doctest: +NORMALIZE_WHITESPACE
    /data/genai/genai_image.json not found; --data must be the set's folder as downloaded:
      genai_image.json  ratings
      MODEL/ID.jpeg     images
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from eval.datasets.base import EvalItem, Target
from judge.io.confine import PathEscape, inside
from memory.exemplar import ExemplarRecord
from memory.io.jsonl import TOO_DEEP
from memory.io.utf8 import NotUtf8, read_utf8

BASELINES = Path(__file__).with_name("baselines.json")
SETS = Path(__file__).with_name("sets.toml")


class LayoutError(ValueError):
    """The folder or a file does not have the set's published layout."""

    @classmethod
    def missing(cls, data: Path, name: str, files: tuple[ExpectedFile, ...]) -> LayoutError:
        """A missing file, with the layout the folder should have."""
        width = max(len(f.path) for f in files)
        lines = [f"  {f.path:<{width}}  {f.what}" for f in files]
        return cls(
            f"{data / name} not found; --data must be the set's folder as downloaded:\n"
            + "\n".join(lines)
        )


@dataclass(frozen=True)
class ExpectedFile:
    """One file of a set's published layout; ``per_item`` files (a pattern such as
    ``MODEL/ID.jpeg``) are checked item by item when the set is read."""

    path: str
    what: str
    per_item: bool = False


@dataclass(frozen=True)
class Baseline:
    """A published figure, quoted: never reproduced by this project."""

    system: str
    metric: str
    value: float
    split: str
    citation: str
    source: str
    target: str | None = None
    note: str | None = None
    quoted: bool = True

    def as_dict(self) -> dict[str, Any]:
        """JSON form for the report."""
        keys = ("system", "metric", "value", "split", "citation", "source")
        out = {k: getattr(self, k) for k in keys}
        out |= {"target": self.target, "note": self.note, "quoted": self.quoted}
        return out


def load_baselines(name: str, path: Path = BASELINES) -> list[Baseline]:
    """The quoted figures of one set (an empty list when none could be verified).

    >>> [b.system for b in load_baselines("hpdv2")][-1]
    'HPS v2.1'
    """
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [Baseline(**row) for row in raw.get(name, {}).get("baselines", [])]


def baselines_checked(name: str, path: Path = BASELINES) -> str:
    """Which sources were read for the set's baselines, and why nothing (more) is quoted.

    >>> "t2v_metrics" in baselines_checked("genai-bench")
    True
    """
    raw = json.loads(path.read_text(encoding="utf-8"))
    return str(raw.get(name, {}).get("checked") or "no source has been checked yet")


@dataclass(frozen=True)
class JsonPath:
    """Where a value sits in a JSON file, for messages: ``FILE: key "00001" → "models"``."""

    file: Path
    keys: tuple[str, ...] = field(default_factory=tuple)

    def __truediv__(self, key: object) -> JsonPath:
        return JsonPath(self.file, (*self.keys, str(key)))

    def __str__(self) -> str:
        if not self.keys:
            return str(self.file)
        return f"{self.file}: key " + " → ".join(json.dumps(k) for k in self.keys)

    def error(self, problem: str) -> LayoutError:
        """A :class:`LayoutError` naming this place."""
        return LayoutError(f"{self}: {problem}")

    def fields(self, entry: Any, names: tuple[str, ...], what: str) -> dict:
        """``entry`` (the value at this place) if it is an object holding every one of
        ``names``, else an error naming the place and the first missing field.

        Example:
            >>> at = JsonPath(Path("x.json")) / 0
            >>> at.fields({"prompt": "a cat"}, ("prompt",), "an object")
            {'prompt': 'a cat'}
            >>> at.fields({}, ("prompt",), "an object")
            Traceback (most recent call last):
            eval.datasets.public.base.LayoutError: x.json: key "0": field "prompt" is missing
        """
        expect(entry, dict, self, what)
        for name in names:
            if name not in entry:
                raise self.error(f'field "{name}" is missing')
        return entry


def load_json(path: Path) -> Any:
    """A JSON file; a syntax error names the file and line, as does text that is not UTF-8,
    and JSON nested too deeply to read names the file."""
    try:
        return json.loads(read_utf8(path))
    except NotUtf8 as exc:
        raise LayoutError(str(exc)) from None
    except RecursionError:
        raise LayoutError(f"{path}: {TOO_DEEP}") from None
    except json.JSONDecodeError as exc:
        raise LayoutError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None


def expect(value: Any, kind: type | tuple[type, ...], at: JsonPath, what: str) -> Any:
    """``value`` if it is of ``kind``, else an error naming the place and the field."""
    if isinstance(value, bool) or not isinstance(value, kind):
        got = type(value).__name__ if value is not None else "null"
        raise at.error(f"expected {what}, got {got} {json.dumps(value)[:40]}")
    if isinstance(value, float) and not math.isfinite(value):
        raise at.error(f"expected {what}, got {value} (NaN and infinities are not ratings)")
    return value


@cache
def declarations(path: Path = SETS) -> dict[str, dict[str, Any]]:
    """The sets' declarations (``sets.toml``), by registered name, read once.

    >>> declarations()["hpdv2"]["kind"]
    'preferences'
    """
    with path.open("rb") as f:
        return tomllib.load(f)


class PublicSet:
    """Base of the public sets: the defaults of :class:`eval.datasets.base.Dataset` for a
    set that builds no exemplar memory and is scored zero-shot (or with ``--memory-dir``).

    A subclass names its entry of ``sets.toml`` (``class Tifa(PublicSet, name="tifa")``),
    which declares its ``title``, ``kind``, ``files``, ``strata``, ``skills``,
    ``group_key`` and targets; the subclass brings the reading (:meth:`load`).

    Example:
        >>> class Mini(PublicSet, name="agiqa-3k"):
        ...     pass
        >>> Mini.kind, Mini.files[0].path, [t.name for t in Mini().targets]
        ('ratings', 'data.csv', ['quality', 'alignment'])
    """

    name: ClassVar[str]
    title: ClassVar[str]
    kind: ClassVar[str]
    files: ClassVar[tuple[ExpectedFile, ...]]
    strata: ClassVar[tuple[str, ...]] = ()
    targets: list[Target]
    skills: ClassVar[list[str]] = []
    group_key: ClassVar[str | None] = None
    declared_targets: ClassVar[tuple[dict[str, str], ...]] = ()

    def __init_subclass__(cls, name: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if name is None:
            return
        entry = declarations()[name]
        cls.name = name
        cls.title = entry["title"]
        cls.kind = entry["kind"]
        cls.files = tuple(ExpectedFile(**f) for f in entry["files"])
        cls.strata = tuple(entry.get("strata", ()))
        cls.skills = list(entry.get("skills", ()))
        cls.group_key = entry.get("group_key")
        cls.declared_targets = tuple(entry["targets"])

    def __init__(self) -> None:
        self.targets = [Target(**t) for t in self.declared_targets]

    def check_files(self, data: Path) -> None:
        """Raise :class:`LayoutError` for the first expected file that is missing (or that
        is a symlink leading out of the folder)."""
        if not data.is_dir():
            raise LayoutError.missing(data, "", self.files)
        for f in self.files:
            if f.per_item:
                continue  # named by the data (one folder per model): checked per item
            if not self.data_path(data, f.path, data / f.path).is_file():
                raise LayoutError.missing(data, f.path, self.files)

    @staticmethod
    def data_path(data: Path, name: str, at: object) -> Path:
        """``name`` (a path the set's files give) under ``data``, resolved; a
        :class:`LayoutError` naming ``at`` (the record) when it is absolute, climbs out with
        ``..`` or is a symlink pointing out of the folder — nothing outside ``--data`` is
        read, let alone sent to a model.

        Example:
            >>> PublicSet.data_path(Path("/data/tifa"), "/etc/hostname", "tifa.json: key x")
            Traceback (most recent call last):
            eval.datasets.public.base.LayoutError: tifa.json: key x: path '/etc/hostname' leaves \
the data folder (--data) /data/tifa and is refused (it resolves to /etc/hostname); \
name files relative to that folder, inside it
        """
        try:
            return inside(data, name, where=str(at), folder="the data folder (--data)")
        except PathEscape as exc:
            raise LayoutError(str(exc)) from None

    @classmethod
    def find_image(cls, data: Path, name: str, at: object) -> Path | None:
        """The image file ``name`` beside the set's files or in its ``images/`` folder
        (resolved); a name leading out of the folder is refused, naming ``at``."""
        for candidate in (name, f"images/{name}"):
            path = cls.data_path(data, candidate, at)
            if path.is_file():
                return path
        return None

    def labels_path(self, data: Path) -> Path:
        """The first expected file: the one holding the human judgments."""
        return data / self.files[0].path

    def load(self, data: Path) -> list[EvalItem]:  # pragma: no cover - every set overrides
        raise NotImplementedError

    def baselines(self) -> list[Baseline]:
        """The set's published figures (quoted), from ``baselines.json``."""
        return load_baselines(self.name)

    def baselines_checked(self) -> str:
        """What was read for the baselines (printed when none is quoted)."""
        return baselines_checked(self.name)

    def memories(self, data: Path) -> dict[str, tuple[list[ExemplarRecord], Path]]:
        """None: a public set is judged zero-shot (or with a store given by --memory-dir)."""
        return {}
