"""One file from a URL (the authors' repository), resumed and checked.

The file is written to ``PATH.part`` and renamed only once complete and checked: a run cut
short leaves the part, and the next run asks the server for the rest (an HTTP range); a server
that ignores the range sends the whole file again, which replaces the part. Where the publisher
gives a sha256 (a Git LFS pointer does) or a size, a file that does not match is removed and
the fetch stops with an error saying so: a corrupt copy is never left looking complete.

``mirror`` serves the same paths from elsewhere (``MIRROR/HOST/PATH``): a site's own copy, or
the tests' loopback server.

Example:
    >>> mirrored("https://raw.githubusercontent.com/o/r/abc/data.csv", "http://127.0.0.1:8000")
    'http://127.0.0.1:8000/raw.githubusercontent.com/o/r/abc/data.csv'
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from tqdm import tqdm

from eval.datasets.fetch.catalog import FetchError, UrlFile

CHUNK = 1 << 20


def mirrored(url: str, mirror: str | None) -> str:
    """``url`` itself, or its host and path under ``mirror``."""
    if not mirror:
        return url
    parts = urlsplit(url)
    return f"{mirror.rstrip('/')}/{parts.netloc}{parts.path}"


def sha256_of(path: Path) -> str:
    """The sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def fetch_url(
    item: UrlFile,
    dest: Path,
    *,
    mirror: str | None,
    progress: bool,
    headers: dict[str, str] | None = None,
) -> str:
    """Download ``item`` to ``dest`` (resuming ``dest.part``); its sha256."""
    url = mirrored(item.url, mirror)
    part = dest.with_name(dest.name + ".part")
    dest.parent.mkdir(parents=True, exist_ok=True)
    have = part.stat().st_size if part.is_file() else 0
    headers = dict(headers or {})
    if have:
        headers["Range"] = f"bytes={have}-"
    try:
        with httpx.stream(
            "GET", url, headers=headers, follow_redirects=True, timeout=60.0
        ) as response:
            if response.status_code == 416 and have:  # the part is already whole
                pass
            elif response.status_code >= 400:
                raise FetchError(
                    f"{url}: the server answered HTTP {response.status_code}; the file may have "
                    "moved (see `judge datasets list` for the set's source page)"
                )
            else:
                resumed = response.status_code == 206
                length = int(response.headers.get("Content-Length") or 0)
                with (
                    part.open("ab" if resumed else "wb") as out,
                    tqdm(
                        total=(have if resumed else 0) + length or None,
                        initial=have if resumed else 0,
                        unit="B",
                        unit_scale=True,
                        desc=dest.name,
                        disable=not progress,
                    ) as bar,
                ):
                    for block in response.iter_bytes():  # as it comes: a break keeps it
                        out.write(block)
                        bar.update(len(block))
    except httpx.HTTPError as exc:
        raise FetchError(
            f"{url}: download interrupted ({exc}); run the same command again to resume"
        ) from None
    return _checked(item, part, dest, url)


def _checked(item: UrlFile, part: Path, dest: Path, url: str) -> str:
    """Check the finished part against the publisher's size and sha256, then rename it."""
    size = part.stat().st_size
    digest = sha256_of(part)
    problem = None
    if item.sha256 is not None and digest != item.sha256:
        problem = f"sha256 {digest} where the publisher lists {item.sha256}"
    elif item.size is not None and size != item.size:
        problem = f"{size} bytes where the publisher lists {item.size}"
    if problem:
        part.unlink()
        raise FetchError(
            f"{url}: the downloaded file does not match ({problem}); it was removed, nothing "
            "was kept as complete. Run again; if it persists, the source changed or the copy "
            "is damaged"
        )
    part.replace(dest)
    return digest
