"""``python -m benchmarks.decode``: peak memory and CPU of one PNG decode, Pillow against the
fast path (:mod:`judge.io.png_fast`), and the cost of refusing a 1 x 40,000,000 strip.

Each decode runs in a fresh process that reads the file first, so the figure is what the
decode itself adds: the peak resident set (``VmHWM``, Linux) above the process's peak before it
(the decoders' pixel buffers are C allocations, which ``tracemalloc`` does not see), and its
CPU seconds. The image is a photograph-like gradient with noise, saved by Pillow as 8-bit RGB.
A decoded RGB image costs Pillow 4 bytes a pixel; the fast path's extra is one strip of rows
(``judge.io.png_fast.STRIP_BYTES``) held a few times: inflated, in libspng's buffers, as an
array, as the strip image pasted into the whole.

Example:
    >>> out = run_bench(side=64)
    >>> sorted(out["decoders"]), out["strip"]["refused"]
    (['fast', 'pillow'], True)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

_CHILD = """
import io, sys, time
from PIL import Image
from judge.io.png_fast import decode_plain_png
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
data = open(sys.argv[2], "rb").read()
before = hwm()
cpu = time.process_time()
if sys.argv[1] == "fast":
    img = decode_plain_png(data)
else:
    img = Image.open(io.BytesIO(data))
    img.load()
cpu = time.process_time() - cpu
after = hwm()
print(img.size[0] * img.size[1], (after - before) * 1024, cpu)
"""


def photo_png(side: int, path: Path) -> Path:
    """A ``side`` x ``side`` RGB PNG that compresses like a photograph."""
    from PIL import Image

    y, x = np.mgrid[0:side, 0:side]
    rgb = np.stack([200 * x / side + 20, 180 * y / side + 30, 90 + 0 * x], axis=-1)
    rgb += np.random.default_rng(0).normal(0, 6, rgb.shape)
    Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8)).save(path)
    return path


def _decode_in_child(decoder: str, path: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, decoder, str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    pixels, peak, cpu = int(out[0]), int(out[1]), float(out[2])
    return {"peak_mb": round(peak / 1e6, 1), "bytes_per_pixel": round(peak / pixels, 2),
            "cpu_s": round(cpu, 4)}  # fmt: skip


def run_bench(side: int = 3000) -> dict[str, Any]:
    """Decode a ``side``² photo with each decoder (a fresh process each) and refuse the strip."""
    with tempfile.TemporaryDirectory() as tmp:
        path = photo_png(side, Path(tmp) / "photo.png")
        decoders = {d: _decode_in_child(d, path) for d in ("pillow", "fast")}
        size = path.stat().st_size
    return {"side": side, "file_bytes": size, "decoders": decoders, "strip": strip_refusal()}


def strip_png(w: int, h: int) -> bytes:
    """An 8-bit RGB PNG of ``w`` x ``h`` black pixels, deflated a slice at a time."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc

    row = b"\x00" * (1 + 3 * w)
    per = max(1, 4_000_000 // len(row))
    z = zlib.compressobj(9)
    idat = b"".join(z.compress(row * min(per, h - y)) for y in range(0, h, per)) + z.flush()
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def strip_refusal() -> dict[str, Any]:
    """Refuse the issue's 1 x 40,000,000 PNG (about 200 KB): CPU seconds and the message."""
    from judge.errors import InputError
    from judge.io.images import decode_image

    data = strip_png(1, 40_000_000)
    cpu = time.process_time()
    try:
        decode_image(data, field="images[0]", charge=False)
        message, refused = "decoded", False
    except InputError as exc:
        message, refused = str(exc), True
    cpu = round(time.process_time() - cpu, 4)
    return {"file_bytes": len(data), "refused": refused, "cpu_s": cpu, "message": message}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--side", type=int, default=3000, help="the photo's width and height")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = p.parse_args(argv)
    out = run_bench(args.side)
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{args.side}x{args.side} RGB photo as PNG, {out['file_bytes'] / 1e6:.1f} MB")
    for name, d in out["decoders"].items():
        print(f"  {name:<7} peak +{d['peak_mb']} MB ({d['bytes_per_pixel']} B/pixel), "
              f"{d['cpu_s']:.3f} s CPU")  # fmt: skip
    s = out["strip"]
    print(
        f"1x40000000 strip ({s['file_bytes'] / 1e3:.0f} KB): {s['cpu_s']:.4f} s CPU, {s['message']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
