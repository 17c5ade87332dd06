"""Files of a Hugging Face dataset, through ``huggingface_hub``'s public API, checked.

The repository's file list (``HfApi.list_repo_tree``) gives each file's size and the checksum
the Hub keeps for it: the sha256 of a Git LFS file, the git blob id of a small one. Each file
is downloaded from the library's URL for it (``hf_hub_url``), resumed from its partial copy
across runs, then hashed and compared; a file that does not match is removed, and the fetch
stops.

``HF_ENDPOINT`` is read when the fetch runs (a mirror of the Hub, or the tests' loopback
stand-in); ``HF_HUB_OFFLINE`` makes the fetch stop at once with a message saying so.

Example:
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "hello.txt"
    >>> _ = path.write_bytes(b"hello\\n")
    >>> blob_id_of(path)  # what `git hash-object` prints for the same bytes
    'ce013625030ba8dba906f756967f9e9ca394464a'
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
from pathlib import Path
from typing import Any

from eval.datasets.fetch.catalog import FetchError, HubFiles, UrlFile
from eval.datasets.fetch.download import CHUNK, fetch_url
from judge.io.confine import inside

TRUE = {"1", "true", "yes", "on"}


def endpoint() -> str | None:
    """The Hub to use: ``HF_ENDPOINT`` as set now, else the library's default."""
    return os.environ.get("HF_ENDPOINT", "").rstrip("/") or None


def offline() -> bool:
    """Whether offline mode is on, in the environment now or in the loaded library."""
    from huggingface_hub import constants

    env = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return env.strip().lower() in TRUE or bool(constants.HF_HUB_OFFLINE)


def _hub_errors() -> tuple[type[BaseException], ...]:
    """What listing a repository can raise: the library's HTTP errors, its HTTP client's
    (``httpx2`` in 2.x, reached only through the library), and the operating system's."""
    from huggingface_hub.errors import HfHubHTTPError

    client_error: type[Exception]
    try:
        from httpx2 import HTTPError

        client_error = HTTPError
    except ImportError:  # another huggingface_hub release, another client
        client_error = OSError
    return (HfHubHTTPError, client_error, OSError)


def listing(spec: HubFiles) -> list[Any]:
    """The repository's files that ``spec`` names (by name, then by pattern), with their
    sizes and checksums; a name the repository lacks, or a pattern nothing matches, is an
    error naming it."""
    from huggingface_hub import HfApi

    where = f"{endpoint() or 'https://huggingface.co'}/datasets/{spec.repo}@{spec.revision}"
    try:
        tree = HfApi(endpoint=endpoint()).list_repo_tree(
            spec.repo, repo_type="dataset", revision=spec.revision, recursive=True
        )
        files = {f.path: f for f in tree if hasattr(f, "blob_id")}
    except _hub_errors() as exc:
        raise FetchError(f"{where}: cannot list the dataset's files ({_short(exc)})") from None
    chosen = []
    for name in spec.files:
        if name not in files:
            raise FetchError(f"{where} has no file {name}: the set's source entry needs updating")
        chosen.append(files[name])
    for pattern in spec.patterns:
        hits = [f for p, f in sorted(files.items()) if fnmatch.fnmatch(p, pattern)]
        if not hits:
            raise FetchError(f"{where} has no file matching {pattern}")
        chosen += [f for f in hits if f not in chosen]
    return chosen


def fetch_file(spec: HubFiles, entry: Any, folder: Path, *, progress: bool) -> str:
    """Download one listed file into ``folder`` (resuming its ``.part``) and check it; its
    sha256. The URL and headers (a token from ``HF_TOKEN`` or ``hf auth login``) are the
    library's own; the bytes go through :func:`~eval.datasets.fetch.download.fetch_url`,
    because ``hf_hub_download`` resumes only within one call and drops a partial file when
    it gives up, and a 50 GB set must survive a restart."""
    from huggingface_hub import hf_hub_url
    from huggingface_hub.utils import build_hf_headers

    url = hf_hub_url(
        spec.repo, entry.path, repo_type="dataset", revision=spec.revision, endpoint=endpoint()
    )
    lfs = entry.lfs.sha256 if entry.lfs is not None else None
    item = UrlFile(url=url, path=entry.path, sha256=lfs, size=entry.size)
    dest = inside(folder, entry.path)
    digest = fetch_url(item, dest, mirror=None, progress=progress, headers=build_hf_headers())
    if lfs is None and (got := blob_id_of(dest)) != entry.blob_id:
        dest.unlink()
        raise FetchError(
            f"{spec.repo}/{entry.path}: the downloaded file does not match the Hub's checksum "
            f"(git blob id {got}; the Hub lists {entry.blob_id}); it was removed, nothing was "
            "kept as complete. Run again; if it persists, the mirror (HF_ENDPOINT) serves "
            "other bytes than the Hub lists"
        )
    return digest


def blob_id_of(path: Path) -> str:
    """The git blob id (sha1 of ``blob SIZE\\0`` and the bytes) the Hub lists for small files."""
    size = path.stat().st_size
    digest = hashlib.sha1(b"blob %d\0" % size, usedforsecurity=False)
    with path.open("rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}"
