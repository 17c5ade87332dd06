"""A probe run folder's ``probe.json``, typed: the options the run started with, the image
model (or editor) it probes, and for an editor run the folder of source pictures. A resumed
run reads it (``judge probe run --out DIR``) instead of taking the options again.

The file is the one runs always wrote: ``json.dumps(..., indent=1, ensure_ascii=False)`` of
the fields that were set, in the order below (``kind`` and ``sources`` only for an editor
run); a field this version does not know is kept.

Example:
    >>> import pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> ProbeRun(params={"topic": "cats"}, backend={"id": "b1"}).write(out)
    >>> run = ProbeRun.read(out)
    >>> run.params["topic"], run.is_edit, (out / "probe.json").read_text()[:13]
    ('cats', False, '{\\n "params": ')
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from eval.probing.stored import write_json

FILE = "probe.json"


class ProbeRun(BaseModel):
    """What ``DIR/probe.json`` holds (see the module docstring)."""

    # extra="allow": a field written by a newer version survives a read and write here
    model_config = ConfigDict(extra="allow")

    params: dict[str, Any]
    backend: dict[str, Any] = Field(default_factory=dict)
    kind: Literal["edit"] | None = None
    sources: str | None = None

    @classmethod
    def of(cls, params: Any, spec: Any, sources_folder: Path | None = None) -> ProbeRun:
        """The record of a new run: ``params`` (:class:`eval.probing.params.ProbeParams`), the
        backend or editor ``spec`` (its settings, without extra keys), and for an editor run
        the folder of its source pictures."""
        backend = spec.model_dump(exclude={"extra"}) if hasattr(spec, "model_dump") else {}
        run = cls(params=params.model_dump(), backend=backend)
        if sources_folder is not None:
            run = cls(params=run.params, backend=backend, kind="edit",
                      sources=str(Path(sources_folder).resolve()))  # fmt: skip
        return run

    @classmethod
    def read(cls, out: Path) -> ProbeRun | None:
        """``out/probe.json``, or None for a folder without a run."""
        path = Path(out) / FILE
        if not path.is_file():
            return None
        return cls.model_validate(json.loads(path.read_text(encoding="utf-8")))

    def write(self, out: Path) -> None:
        """Write ``out/probe.json`` atomically."""
        write_json(Path(out) / FILE, self.model_dump(mode="json", exclude_unset=True))

    @property
    def is_edit(self) -> bool:
        """True for a run that probes an image editor on source pictures."""
        return self.kind == "edit"
