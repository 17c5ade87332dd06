"""An independent writer of TFRecord files of ``tf.train.Example`` records, for tests: the
Example message is declared here with the ``protobuf`` library (the same field numbers as
TensorFlow's ``example.proto`` and ``feature.proto``) and serialized by it, and each record is
framed with CRC32C computed by a bit-by-bit loop (not the reader's table). Harness only."""

from __future__ import annotations

import struct
from pathlib import Path

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto


def _example_class() -> type:
    fdp = descriptor_pb2.FileDescriptorProto(
        name="tests_tf_example.proto", package="testtf", syntax="proto3"
    )
    for name, kind in (
        ("BytesList", F.TYPE_BYTES),
        ("FloatList", F.TYPE_FLOAT),
        ("Int64List", F.TYPE_INT64),
    ):
        msg = fdp.message_type.add(name=name)
        msg.field.add(name="value", number=1, label=F.LABEL_REPEATED, type=kind)
    feature = fdp.message_type.add(name="Feature")
    feature.oneof_decl.add(name="kind")
    for number, (name, type_name) in enumerate(
        (("bytes_list", "BytesList"), ("float_list", "FloatList"), ("int64_list", "Int64List")), 1
    ):
        feature.field.add(
            name=name, number=number, label=F.LABEL_OPTIONAL, type=F.TYPE_MESSAGE,
            type_name=f".testtf.{type_name}", oneof_index=0,
        )  # fmt: skip
    features = fdp.message_type.add(name="Features")
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, label=F.LABEL_OPTIONAL, type=F.TYPE_STRING)
    entry.field.add(
        name="value", number=2, label=F.LABEL_OPTIONAL, type=F.TYPE_MESSAGE,
        type_name=".testtf.Feature",
    )  # fmt: skip
    features.field.add(
        name="feature", number=1, label=F.LABEL_REPEATED, type=F.TYPE_MESSAGE,
        type_name=".testtf.Features.FeatureEntry",
    )  # fmt: skip
    example = fdp.message_type.add(name="Example")
    example.field.add(
        name="features", number=1, label=F.LABEL_OPTIONAL, type=F.TYPE_MESSAGE,
        type_name=".testtf.Features",
    )  # fmt: skip
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("testtf.Example"))


Example = _example_class()


def example_bytes(features: dict[str, list]) -> bytes:
    """A serialized Example: bytes values → bytes_list, floats → float_list, ints →
    int64_list (each list one kind)."""
    ex = Example()
    for key, values in features.items():
        feat = ex.features.feature[key]
        if values and isinstance(values[0], bytes):
            feat.bytes_list.value.extend(values)
        elif values and isinstance(values[0], float):
            feat.float_list.value.extend(values)
        else:
            feat.int64_list.value.extend(values)
    return ex.SerializeToString()


def crc32c_slow(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def _masked(data: bytes) -> int:
    c = crc32c_slow(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def frame(data: bytes) -> bytes:
    """One TFRecord record around ``data``."""
    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", _masked(head)) + data + struct.pack("<I", _masked(data))


def write_tfrecord(path: Path, examples: list[dict[str, list]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(frame(example_bytes(e)) for e in examples))
    return path
