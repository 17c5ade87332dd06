"""One public set fetched end to end, then read by its adapter to prove the layout.

:func:`fetch` prints the set's source, licence and citation, runs the catalog's steps (the
authors' files, the Hub's files, archives unpacked), skips what the folder already holds, and
then reads the folder with the set's adapter (``judge meta-eval --dataset NAME`` reads it the
same way). A step only a person can do (a drive link) is printed with the exact file to put
where, or done from the archive given with ``archives``.

Example::

    outcome = fetch("tifa", Path("data/tifa"))
    outcome.manual_left[0].url    # the drive link of the images: a person downloads it
    outcome = fetch("tifa", Path("data/tifa"), archives=[Path("tifa_images.zip")])
    outcome.complete, outcome.items   # (True, 800): read back by the tifa adapter
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from eval.datasets.fetch import hub
from eval.datasets.fetch.catalog import FetchError, HubFiles, Manual, Source, source
from eval.datasets.fetch.download import fetch_url
from eval.datasets.fetch.state import FolderState
from eval.datasets.fetch.unpack import joined, place_by_name, unpack
from judge.io.confine import inside

Say = Callable[[str], None]


@dataclass
class Outcome:
    """What one fetch did: files fetched and skipped, manual steps left, items read."""

    name: str
    folder: Path
    fetched: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    manual_left: list[Manual] = field(default_factory=list)
    items: int | None = None

    @property
    def complete(self) -> bool:
        """Everything is there and the adapter read the folder."""
        return not self.manual_left and self.items is not None


def header(src: Source) -> str:
    """The lines every fetch starts with: source, licence, citation (and size)."""
    lines = [
        f"{src.name}: {src.source}",
        f"  licence: {src.licence}",
        f"  cite:    {src.citation}",
    ]
    if src.size_note:
        lines.append(f"  size:    {src.size_note}")
    return "\n".join(lines)


def fetch(
    name: str,
    to: Path,
    *,
    archives: Sequence[Path] = (),
    mirror: str | None = None,
    keep_archives: bool = False,
    progress: bool = True,
    say: Say = print,
) -> Outcome:
    """Fetch the set ``name`` into ``to`` (see the module docstring); a
    :class:`~eval.datasets.fetch.catalog.FetchError` says what stopped it."""
    src = source(name)
    if len(archives) > len(src.manual):
        raise FetchError(
            f"{name} has {len(src.manual)} manual download(s); {len(archives)} --archive given"
        )
    for archive in archives:
        if not archive.is_file():
            raise FetchError(f"--archive {archive}: no such file")
    to.mkdir(parents=True, exist_ok=True)
    say(header(src))
    if src.hubs and hub.offline():
        raise FetchError(
            "HF_HUB_OFFLINE is set (the project's Makefile and tests set it), so the Hugging "
            f"Face Hub cannot be reached for {name}; run with HF_HUB_OFFLINE=0 (or unset it)"
        )
    state = FolderState(to)
    outcome = Outcome(name, to)
    for item in src.urls:
        if state.has(item.path):
            outcome.skipped.append(item.path)
            continue
        dest = inside(to, item.path)
        digest = fetch_url(item, dest, mirror=mirror, progress=progress)
        state.mark(item.path, digest, dest.stat().st_size)
        outcome.fetched.append(item.path)
    for spec in src.hubs:
        _hub_step(spec, to, state, outcome, keep_archives=keep_archives, progress=progress)
    for step, given in zip(src.manual, [*archives, *[None] * len(src.manual)], strict=False):
        place = inside(to, step.place)
        if given is not None:
            n = place_by_name(given, place, step.pattern, progress=progress)
            say(f"  {given.name}: {n} {step.pattern} files put into {place}")
            if not n:
                raise FetchError(f"--archive {given}: no {step.pattern} file in it")
        elif not any(place.glob(step.pattern)) and not any(to.glob(step.pattern)):
            outcome.manual_left.append(step)
    if outcome.manual_left:
        return outcome
    outcome.items = _read_back(name, to)
    return outcome


def _hub_step(
    spec: HubFiles,
    to: Path,
    state: FolderState,
    outcome: Outcome,
    *,
    keep_archives: bool,
    progress: bool,
) -> None:
    """One dataset's files: fetched (or skipped), joined and unpacked."""
    base = inside(to, spec.into) if spec.into else to
    rel = (lambda p: f"{spec.into}/{p}") if spec.into else (lambda p: p)
    entries = hub.listing(spec)
    for entry in entries:
        key = rel(entry.path)
        if state.has(key) or state.was_unpacked(key) or _in_unpacked_join(spec, entry, state):
            outcome.skipped.append(key)
            continue
        digest = hub.fetch_file(spec, entry, base, progress=progress)
        state.mark(key, digest, entry.size)
        outcome.fetched.append(key)
    if spec.join and not state.was_unpacked(rel(spec.join["into"])):
        parts = [base / e.path for e in entries if fnmatch.fnmatch(e.path, spec.join["parts"])]
        with joined(parts) as archive:
            unpack(archive, base, progress=progress)
        state.mark_unpacked(rel(spec.join["into"]), "joined")
        for part in parts if not keep_archives else ():
            part.unlink(missing_ok=True)
    for entry in entries:
        key = rel(entry.path)
        if not any(fnmatch.fnmatch(entry.path, p) for p in spec.unpack) or state.was_unpacked(key):
            continue
        unpack(base / entry.path, base, progress=progress)
        state.mark_unpacked(key, state.files.get(key, {}).get("sha256", ""))
        if not keep_archives:
            (base / entry.path).unlink(missing_ok=True)


def _in_unpacked_join(spec: HubFiles, entry: object, state: FolderState) -> bool:
    """A part of a split archive already joined and unpacked (and maybe removed)."""
    if not spec.join or not fnmatch.fnmatch(getattr(entry, "path", ""), spec.join["parts"]):
        return False
    target = f"{spec.into}/{spec.join['into']}" if spec.into else spec.join["into"]
    return state.was_unpacked(target)


def _read_back(name: str, to: Path) -> int:
    """The number of items the set's adapter reads from the folder; a folder it cannot read
    is a :class:`FetchError` quoting the adapter."""
    from eval.datasets import get_dataset
    from eval.datasets.public.base import LayoutError

    try:
        return len(get_dataset(name).load(to))
    except (LayoutError, ValueError, OSError) as exc:
        raise FetchError(
            f"the files are fetched, but the {name} adapter cannot read {to}: {exc}"
        ) from None


def manual_instructions(name: str, to: Path, steps: Sequence[Manual]) -> str:
    """What a person has to do for each manual step left, exactly."""
    lines = []
    for k, step in enumerate(steps, 1):
        place = to / step.place
        lines += [
            f"manual step {k}: {step.what}",
            f"  1. download it from {step.url}",
            f"  2. then: judge datasets fetch {name} --to {to} --archive PATH/TO/THE/ARCHIVE",
            f"     (its {step.pattern} files are put into {place}/ by name, whatever folders",
            "     the archive keeps them in); or unpack it yourself and move the "
            f"{step.pattern} files into {place}/",
        ]
    return "\n".join(lines)
