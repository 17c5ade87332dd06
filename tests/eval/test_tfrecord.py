"""The TFRecord / tf.train.Example reader against records the protobuf library serializes
and a harness frames with its own CRC32C, against bytes written out by hand, and against
truncated and corrupted files."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import google_crc32c
import pytest

from eval.datasets.public.tfrecord import (
    TFRecordError,
    crc32c,
    decode_example,
    masked_crc,
    read_examples,
)
from tests.eval.public_sets.tf_example import crc32c_slow, example_bytes, frame, write_tfrecord


def test_crc32c_check_values() -> None:
    assert crc32c(b"123456789") == 0xE3069283  # the CRC-32C catalogue's check value
    assert crc32c(b"") == 0
    assert crc32c(b"\x00" * 32) == 0x8A9136AA  # RFC 3720 B.4 test vectors
    assert crc32c(b"\xff" * 32) == 0x62A8AB43
    assert crc32c(bytes(range(32))) == 0x46DD794E
    blob = bytes(range(256)) * 3
    assert crc32c(blob) == crc32c_slow(blob)


def test_the_crc_is_the_compiled_one() -> None:
    # google-crc32c falls back to pure Python (with a warning) when its extension is missing;
    # the reader would then crawl at a few MB/s again (python -m benchmarks.tfrecord)
    assert google_crc32c.implementation == "c"


def test_examples_serialized_by_protobuf_read_back(tmp_path: Path) -> None:
    examples = [
        {
            "filename": [b"test/abc.png"],
            "aesthetics_score": [0.25, -1.5],
            "count": [0, 7, 300, -2, 2**40],
            "maps": [b"", b"\x00\xff" * 100],
        },
        {"only": [b"x"]},
    ]
    path = write_tfrecord(tmp_path / "t.tfrecord", examples)
    got = list(read_examples(path))
    assert [n for n, _ in got] == [0, 1]
    assert got[0][1] == examples[0]  # 0.25 and -1.5 are exact in float32
    assert got[1][1] == {"only": [b"x"]}


def test_a_hand_encoded_example_with_unpacked_values() -> None:
    # Example{features{feature{key:"f" value{float_list{value: 1.0 (unpacked, wire type 5)}}}}}
    # and {key:"i" value{int64_list{value: 5 (unpacked varint)}}}
    f_list = b"\x0d" + struct.pack("<f", 1.0)  # field 1, wire 5
    entry_f = (
        b"\x0a\x01f" + b"\x12" + bytes([2 + len(f_list)]) + b"\x12" + bytes([len(f_list)]) + f_list
    )
    i_list = b"\x08\x05"  # field 1, wire 0, value 5
    entry_i = (
        b"\x0a\x01i" + b"\x12" + bytes([2 + len(i_list)]) + b"\x1a" + bytes([len(i_list)]) + i_list
    )
    features = b"\x0a" + bytes([len(entry_f)]) + entry_f + b"\x0a" + bytes([len(entry_i)]) + entry_i
    data = b"\x0a" + bytes([len(features)]) + features
    assert decode_example(data) == {"f": [1.0], "i": [5]}
    assert decode_example(data) == decode_example(example_bytes({"f": [1.0], "i": [5]}))


def test_the_frame_is_the_reader_s(tmp_path: Path) -> None:
    data = example_bytes({"k": [b"v"]})
    raw = frame(data)
    assert struct.unpack("<I", raw[8:12])[0] == masked_crc(raw[:8])
    assert struct.unpack("<I", raw[-4:])[0] == masked_crc(data)


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (lambda b: b[:-2], r"record 1 \(byte \d+\): announces \d+ bytes of data"),
        (lambda b: b + b"\x01\x02", r"record 2 \(byte \d+\): truncated length header"),
        (lambda b: b[:20] + bytes([b[20] ^ 1]) + b[21:], r"record 0 \(byte 0\): data CRC does not"),
        (lambda b: b"\x09" + b[1:], r"record 0 \(byte 0\): length CRC does not match"),
    ],
)
def test_a_damaged_file_names_the_record_and_offset(tmp_path: Path, damage, expected) -> None:
    path = write_tfrecord(tmp_path / "t.tfrecord", [{"a": [b"xyz"]}, {"b": [1.5]}])
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(TFRecordError, match=r"t.tfrecord: " + expected):
        list(read_examples(path))


def test_a_record_that_is_not_an_example(tmp_path: Path) -> None:
    path = tmp_path / "t.tfrecord"
    path.write_bytes(frame(b"\x0a\x05\x0a\x03"))  # a length running past its message
    with pytest.raises(TFRecordError, match=r"record 0: not a tf.train.Example \(field 1 runs"):
        list(read_examples(path))


def test_the_reader_benchmark_runs_with_its_flags(capsys) -> None:
    from benchmarks import tfrecord as bench

    argv = ["--records", "3", "--map-kb", "2", "--repeats", "1", "--python-crc", "--json"]
    assert bench.main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["records"] == 3 and out["crc"]["speedup"] > 1
    assert bench.main(["--records", "2", "--map-kb", "1", "--repeats", "1"]) == 0
    assert "read_examples():" in capsys.readouterr().out
