"""TFRecord files of ``tf.train.Example`` records, read without TensorFlow.

A TFRecord file is a sequence of records, each::

    uint64 length (little-endian) | uint32 masked CRC32C of the length bytes
    data (length bytes)           | uint32 masked CRC32C of the data

where a masked CRC is ``((crc >> 15 | crc << 17) + 0xa282ead8) mod 2**32`` over CRC32C
(Castagnoli), computed by the ``google-crc32c`` package's C library (``python -m
benchmarks.tfrecord`` measures the reader). Each data block here is a ``tf.train.Example``
protobuf: ``features`` (field 1) holding a map (field 1, entries of ``key`` = 1 and ``value``
= 2) from a name to a ``Feature``, one of ``bytes_list`` (1), ``float_list`` (2) or
``int64_list`` (3), each a repeated ``value`` (field 1; floats and int64s packed or not).

:func:`read_examples` yields each record as ``{name: [values]}`` (bytes, floats or ints); a
truncated file, a CRC that does not match or a record that is not an Example raises
:class:`TFRecordError` naming the file, the record number and the byte offset.

Example:
    >>> crc32c(b"123456789") == 0xE3069283  # the standard check value
    True
    >>> data = bytes.fromhex("0a0e0a0c0a017312071a050a03ff0f01")
    >>> decode_example(data)
    {'s': [2047, 1]}
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from pathlib import Path

import google_crc32c

MASK_DELTA = 0xA282EAD8


class TFRecordError(ValueError):
    """A TFRecord file or an Example in it that cannot be read."""


def crc32c(data: bytes) -> int:
    """CRC32C (Castagnoli) of ``data``, computed by ``google-crc32c``'s C library (hardware
    CRC instructions where the CPU has them)."""
    return google_crc32c.value(data)


def masked_crc(data: bytes) -> int:
    """The masked CRC32C TFRecord stores."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + MASK_DELTA) & 0xFFFFFFFF


def records(path: Path) -> Iterator[tuple[int, bytes]]:
    """``(record number, data)`` for every record of ``path``, both CRCs checked."""
    with path.open("rb") as f:
        size = os.fstat(f.fileno()).st_size
        n = 0
        while True:
            offset = f.tell()
            head = f.read(12)
            if not head:
                return
            where = f"{path}: record {n} (byte {offset})"
            if len(head) < 12:
                raise TFRecordError(f"{where}: truncated length header")
            length, crc = struct.unpack("<QI", head)
            if masked_crc(head[:8]) != crc:
                raise TFRecordError(f"{where}: length CRC does not match (not a TFRecord?)")
            left = size - offset - 16
            if length > left:  # never trust the length for an allocation: the file says
                raise TFRecordError(
                    f"{where}: announces {length} bytes of data, the file has {max(left, 0)} "
                    "left (truncated or corrupt)"
                )
            data = f.read(length)
            tail = f.read(4)
            if len(data) < length or len(tail) < 4:
                raise TFRecordError(f"{where}: truncated, {length} bytes announced")
            if masked_crc(data) != struct.unpack("<I", tail)[0]:
                raise TFRecordError(f"{where}: data CRC does not match (corrupted)")
            yield n, data
            n += 1


def read_examples(path: Path) -> Iterator[tuple[int, dict[str, list]]]:
    """``(record number, {feature name: [values]})`` for every Example in ``path``."""
    for n, data in records(path):
        try:
            yield n, decode_example(data)
        except (ValueError, IndexError, struct.error) as exc:
            raise TFRecordError(f"{path}: record {n}: not a tf.train.Example ({exc})") from None


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated varint")
        b = buf[pos]
        pos += 1
        out |= (b & 0x7F) << shift
        if not b & 0x80:
            return out, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint longer than 10 bytes")


def fields(buf: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """``(field number, wire type, value)`` of one protobuf message: an int for varints and
    fixed widths, bytes for length-delimited fields."""
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
            yield number, wire, value
        elif wire == 1:
            yield number, wire, struct.unpack_from("<Q", buf, pos)[0]
            pos += 8
        elif wire == 2:
            size, pos = _varint(buf, pos)
            if pos + size > len(buf):
                raise ValueError(f"field {number} runs past the end of its message")
            yield number, wire, buf[pos : pos + size]
            pos += size
        elif wire == 5:
            yield number, wire, struct.unpack_from("<I", buf, pos)[0]
            pos += 4
        else:
            raise ValueError(f"unsupported wire type {wire} for field {number}")


def _int64(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _values(kind: int, buf: bytes) -> list:
    """The values of a BytesList (1), FloatList (2) or Int64List (3)."""
    out: list = []
    for number, wire, value in fields(buf):
        if number != 1:
            continue
        if isinstance(value, bytes):  # length-delimited (wire type 2)
            if kind == 1:
                out.append(bytes(value))
            elif kind == 2:
                out.extend(x for (x,) in struct.iter_unpack("<f", value))
            elif kind == 3:
                pos = 0
                while pos < len(value):
                    v, pos = _varint(value, pos)
                    out.append(_int64(v))
            else:
                raise ValueError(f"list kind {kind} has a value of wire type {wire}")
        elif kind == 2 and wire == 5:
            out.append(struct.unpack("<f", struct.pack("<I", value))[0])
        elif kind == 3 and wire == 0:
            out.append(_int64(value))
        else:
            raise ValueError(f"list kind {kind} has a value of wire type {wire}")
    return out


def decode_example(data: bytes) -> dict[str, list]:
    """A serialized ``tf.train.Example`` as ``{feature name: [values]}``."""
    out: dict[str, list] = {}
    for number, _, features in fields(data):
        if number != 1 or not isinstance(features, bytes):  # wire type 2
            continue
        for fno, _, entry in fields(features):
            if fno != 1 or not isinstance(entry, bytes):
                continue
            key, values = "", []
            for eno, _, part in fields(entry):
                if not isinstance(part, bytes):  # not length-delimited
                    continue
                if eno == 1:
                    key = bytes(part).decode("utf-8")
                elif eno == 2:
                    for kind, _, lst in fields(part):
                        if kind in (1, 2, 3) and isinstance(lst, bytes):
                            values = _values(kind, lst)
            out[key] = values
    return out
