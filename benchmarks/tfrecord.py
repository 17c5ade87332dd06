"""``python -m benchmarks.tfrecord``: how fast the TFRecord reader reads a file, in MB/s.

A synthetic file like RichHF-18K's ``test.tfrecord`` (:mod:`eval.datasets.public.tfrecord`):
``--records`` Examples, each a file name, four float scores, and two ``--map-kb`` KB byte maps
(RichHF's heatmaps are its bulk). The file is written once, then read ``--repeats`` times in
two ways: ``records`` (framing and both CRC32C checks only) and ``read_examples`` (the same
plus decoding each Example). The CRC alone over the same bytes is timed too, with the C library
the reader uses and with the pure-Python table loop the reader had before (``--python-crc``;
off by default since it takes seconds per MB). The median CPU time of the repeats is
reported as MB per CPU second (the figure to trust on a shared, busy machine; the file is in
the page cache after its writing), and the ratio of the pure-Python CRC's time to the C one's
when both ran.

Example:
    >>> out = run_bench(n_records=4, map_kb=8, repeats=1, python_crc=True)
    >>> out["records"], out["read"]["records_mb_s"] > 0, out["crc"]["speedup"] > 1
    (4, True, True)
"""

from __future__ import annotations

import argparse
import json
import statistics
import struct
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from eval.datasets.public.tfrecord import crc32c, masked_crc, read_examples, records


def _table() -> list[int]:
    out = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        out.append(c)
    return out


_TABLE = _table()


def crc32c_python(data: bytes) -> int:
    """The reader's former pure-Python CRC32C (a byte-at-a-time table loop), for comparison.

    >>> hex(crc32c_python(b"123456789"))
    '0xe3069283'
    """
    crc = 0xFFFFFFFF
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _field(number: int, payload: bytes) -> bytes:
    """One length-delimited protobuf field (lengths here stay below 2**21: 3 varint bytes)."""
    size, out = len(payload), bytearray()
    while True:
        out.append((size & 0x7F) | (0x80 if size > 0x7F else 0))
        size >>= 7
        if not size:
            break
    return bytes([number << 3 | 2]) + bytes(out) + payload


def example(i: int, map_kb: int) -> bytes:
    """A serialized Example: ``filename``, four float scores and two byte maps."""
    feats = [("filename", 1, _field(1, f"test/{i:06d}.png".encode()))]
    for k, name in enumerate(("aesthetics", "artifact", "misalignment", "overall")):
        feats.append((f"{name}_score", 2, _field(1, struct.pack("<f", 0.25 * k + i % 3))))
    blob = bytes((i * 7 + j) % 251 for j in range(256)) * (map_kb * 4)
    feats += [("artifact_map", 1, _field(1, blob)), ("misalignment_map", 1, _field(1, blob))]
    entries = b"".join(
        _field(1, _field(1, key.encode()) + _field(2, _field(kind, values)))
        for key, kind, values in feats
    )
    return _field(1, entries)


def write_file(path: Path, n_records: int, map_kb: int) -> int:
    """Write the synthetic file; its size in bytes."""
    with path.open("wb") as f:
        for i in range(n_records):
            data = example(i, map_kb)
            head = struct.pack("<Q", len(data))
            f.write(head + struct.pack("<I", masked_crc(head)))
            f.write(data + struct.pack("<I", masked_crc(data)))
    return path.stat().st_size


def _median_s(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def run_bench(
    n_records: int = 200, map_kb: int = 64, repeats: int = 5, python_crc: bool = False
) -> dict[str, Any]:
    """Write the file, time the reader and the CRC; MB (10**6 bytes) per CPU second of each
    median."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.tfrecord"
        size = write_file(path, n_records, map_kb)
        mb = size / 1e6
        framed = _median_s(lambda: sum(1 for _ in records(path)), repeats)
        decoded = _median_s(lambda: sum(1 for _ in read_examples(path)), repeats)
        raw = path.read_bytes()
    crc: dict[str, Any] = {"c_mb_s": mb / _median_s(lambda: crc32c(raw), repeats)}
    if python_crc:
        slow = _median_s(lambda: crc32c_python(raw), max(1, min(repeats, 3)))
        crc["python_mb_s"] = mb / slow
        crc["speedup"] = crc["c_mb_s"] / crc["python_mb_s"]
    return {
        "records": n_records,
        "file_mb": round(mb, 2),
        "repeats": repeats,
        "read": {"records_mb_s": mb / framed, "read_examples_mb_s": mb / decoded},
        "crc": crc,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures (``--json`` for the raw dict)."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.tfrecord", description=__doc__)
    p.add_argument("--records", type=int, default=200, help="Examples in the file (200)")
    p.add_argument("--map-kb", type=int, default=64, help="KB of each of two byte maps (64)")
    p.add_argument("--repeats", type=int, default=5, help="reads to take the median of (5)")
    p.add_argument("--python-crc", action="store_true", help="also time the pure-Python CRC")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = p.parse_args(argv)
    out = run_bench(args.records, args.map_kb, args.repeats, args.python_crc)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    r, c = out["read"], out["crc"]
    print(f"{out['records']} records, {out['file_mb']} MB, median of {out['repeats']} reads")
    print(f"  records():       {r['records_mb_s']:8.1f} MB/s (framing + both CRCs)")
    print(f"  read_examples(): {r['read_examples_mb_s']:8.1f} MB/s (+ decoding each Example)")
    print(f"  CRC32C alone:    {c['c_mb_s']:8.1f} MB/s (google-crc32c)")
    if "python_mb_s" in c:
        print(f"  pure-Python CRC: {c['python_mb_s']:8.1f} MB/s ({c['speedup']:.0f}x slower)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
