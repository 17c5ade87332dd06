"""A fresh virtualenv holding only the core install (``pip install t2i-judge``), built offline.

No download: the core dependencies' closure is computed from this environment's installed
metadata (each distribution's ``Requires-Dist``, markers and extras honoured), and each
distribution's files (its ``RECORD``) are hard-linked (or copied, across file systems) from
this environment's site-packages into the new one's. The project itself is then installed into
it by :mod:`tests.test_install`. This is the set a ``pip install t2i-judge`` resolves to, at the
versions the lock pins (the lock is what this environment holds).

Example::

    dists = core_closure(core_requirements())
    venv = make_core_venv(tmp_path / "core", dists)

The sizes in docs/quickstart.md: ``python -m tests.core_install`` (the core), ``python -m
tests.core_install local`` (the core and ``[local]``), ... ``all``.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[1]


def canonical(name: str) -> str:
    """A distribution name as the index compares it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def core_requirements(*extras: str) -> list[str]:
    """``[project] dependencies`` of pyproject.toml (what a plain install asks for), and those
    of each extra named (``all`` names the others)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = list(project["dependencies"])
    todo = list(extras)
    while todo:
        for text in project["optional-dependencies"][todo.pop()]:
            req = Requirement(text)
            if canonical(req.name) == canonical(project["name"]):
                todo += sorted(req.extras)
            else:
                wanted.append(text)
    return wanted


def core_closure(
    requirements: list[str], absent: set[str] | None = None
) -> dict[str, md.Distribution]:
    """The installed distributions ``requirements`` pull in, by canonical name (with the
    extras each is asked for, an extra's own requirements are followed too). A requirement
    that is not installed raises, unless ``absent`` collects its name (the lock leaves out the
    desktop ``opencv-python`` that two of [local]'s packages name)."""
    found: dict[str, md.Distribution] = {}
    extras: dict[str, set[str]] = {}
    todo = [Requirement(text) for text in requirements]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = canonical(req.name)
        wanted = set(req.extras)
        if name in found and wanted <= extras[name]:
            continue
        extras[name] = extras.get(name, set()) | wanted
        try:
            found[name] = dist = md.distribution(req.name)
        except md.PackageNotFoundError:
            if absent is None:
                raise
            absent.add(name)
            continue
        for text in dist.requires or []:
            sub = Requirement(text)
            if sub.marker is None or any(
                sub.marker.evaluate({"extra": extra}) for extra in extras[name] | {""}
            ):
                sub.marker = None
                todo.append(sub)
    return found


def _site_packages(python: Path) -> Path:
    out = subprocess.run(
        [str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True, timeout=120,
    )
    return Path(out.stdout.strip())


def _place(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:  # another file system
        shutil.copy2(source, target)


def make_core_venv(path: Path, dists: dict[str, md.Distribution]) -> tuple[Path, Path]:
    """A new venv at ``path`` (no pip) with ``dists`` in it; returns (python, site-packages).
    Files a ``RECORD`` places outside site-packages (console scripts) are left out: the core
    checks run modules, not other projects' scripts."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)],
                   check=True, timeout=300)
    python = path / "bin" / "python"
    site = _site_packages(python)
    for dist in dists.values():
        root = Path(str(dist.locate_file(""))).resolve()
        for file in dist.files or []:
            if file.parts[0] == "..":
                continue
            source = root / file
            if source.is_file():
                _place(source, site / file)
    return python, site


def tree_megabytes(path: Path) -> float:
    """Size of the files under ``path`` in MB (10**6 bytes), each inode once, as ``du``
    counts (apparent sizes; ``du -sm`` rounds blocks up, so it reads a little higher)."""
    seen: set[int] = set()
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            stat = os.lstat(os.path.join(root, name))
            if stat.st_ino not in seen:
                seen.add(stat.st_ino)
                total += stat.st_size
    return total / 1e6


def install_project(python: Path, source: Path, wheels: Path) -> Path:
    """Build the project's wheel from ``source`` (a copy of the checkout: the build writes
    into it) with this environment's pip and setuptools, install it into ``python``'s venv
    without dependencies or an index; returns the wheel."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    pip = [sys.executable, "-m", "pip"]
    quiet = ["--quiet", "--no-deps", "--no-index"]
    subprocess.run([*pip, "wheel", *quiet, "--no-build-isolation", "-w", str(wheels),
                    str(source)], check=True, capture_output=True, timeout=600, env=env)
    (wheel,) = wheels.glob("t2i_judge-*.whl")
    subprocess.run([*pip, "--python", str(python), "install", *quiet, str(wheel)],
                   check=True, capture_output=True, timeout=600, env=env)
    return wheel


def main(argv: list[str]) -> None:
    """Print the size of a fresh venv holding the core and the extras named in ``argv``."""
    import tempfile

    absent: set[str] = set()
    dists = core_closure(core_requirements(*argv), absent)
    with tempfile.TemporaryDirectory() as tmp:
        make_core_venv(Path(tmp) / "venv", dists)
        size = tree_megabytes(Path(tmp) / "venv")
    what = "core" + "".join(f" +[{extra}]" for extra in argv)
    left = f"; not installed here, left out: {', '.join(sorted(absent))}" if absent else ""
    print(f"{what}: {len(dists)} distributions, {size:.0f} MB{left}")


if __name__ == "__main__":
    main(sys.argv[1:])
