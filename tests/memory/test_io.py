"""memory.io: the one JSONL reader (its policy for bad lines) and the one atomic write."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memory.io.atomic import write_atomic
from memory.io.jsonl import JsonlError, parse_jsonl, read_jsonl


def test_blank_lines_are_skipped_and_lines_keep_their_numbers(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n   \n\n[2]\n"x"\r\n', encoding="utf-8")
    assert list(read_jsonl(path)) == [(1, {"a": 1}), (4, [2]), (5, "x")]


def test_a_bad_line_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n{"a": 2}\n{nope\n{"a": 4}\n', encoding="utf-8")
    with pytest.raises(JsonlError) as err:
        read_jsonl(path)
    assert str(err.value).startswith(f"{path}:3: not valid JSON (")
    assert (err.value.source, err.value.line) == (str(path), 3)
    assert isinstance(err.value, ValueError)


def test_objects_only_refuses_other_json() -> None:
    with pytest.raises(JsonlError, match=r"^f.jsonl:2: expected a JSON object, got list$"):
        parse_jsonl('{"a": 1}\n[1]\n', "f.jsonl", objects=True)


def test_a_torn_tail_is_left_out_only_when_asked_and_only_at_the_end() -> None:
    text = '{"a": 1}\n{"a": 2}\n{"a": '
    with pytest.raises(JsonlError, match=r"f.jsonl:3: not valid JSON"):
        parse_jsonl(text, "f.jsonl")
    read = parse_jsonl(text, "f.jsonl", torn_tail=True)
    assert list(read) == [(1, {"a": 1}), (2, {"a": 2})] and read.torn == 3
    assert parse_jsonl(text + "1}\n", "f.jsonl", torn_tail=True).torn is None
    with pytest.raises(JsonlError, match=r"f.jsonl:2: not valid JSON"):  # ends with a newline
        parse_jsonl('{"a": 1}\n{"a": \n', "f.jsonl", torn_tail=True)
    with pytest.raises(JsonlError, match=r"f.jsonl:1: not valid JSON"):  # not the last line
        parse_jsonl('{"a": \n{"a": 2}', "f.jsonl", torn_tail=True)


def test_lines_end_at_newline_only() -> None:
    text = '{"t": "a\u2028b\u2029c\u0085d"}\r\n\n{"t": "e"}'
    assert list(parse_jsonl(text, "f")) == [(1, {"t": "a\u2028b\u2029c\u0085d"}), (3, {"t": "e"})]


def test_lines_already_split_are_read_the_same() -> None:
    assert list(parse_jsonl(["{}", "", "[1]"], "f")) == [(1, {}), (3, [1])]


def test_write_atomic_replaces_whole_and_leaves_no_temp(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "out.json"
    write_atomic(path, "first")
    write_atomic(path, b"second")
    assert path.read_bytes() == b"second"
    assert [p.name for p in path.parent.iterdir()] == ["out.json"]


def test_write_atomic_from_threads_never_mixes(tmp_path: Path) -> None:
    path = tmp_path / "same.bin"
    bodies = [bytes([i]) * 200_000 for i in range(8)]
    threads = [threading.Thread(target=write_atomic, args=(path, b)) for b in bodies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert path.read_bytes() in bodies
    assert [p.name for p in tmp_path.iterdir()] == ["same.bin"]


def test_write_atomic_failure_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "keep.txt"
    path.write_text("old", encoding="utf-8")
    with pytest.raises(TypeError):
        write_atomic(path, 42)  # type: ignore[arg-type]
    assert path.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_a_callers_error_type_carries_the_same_message() -> None:
    class VotesError(ValueError):
        pass

    with pytest.raises(VotesError, match=r"^v.jsonl:2: not valid JSON \(Expecting value\)$"):
        parse_jsonl("{}\n[1,\n", "v.jsonl", error=VotesError)
    assert list(parse_jsonl("{}\n", "v.jsonl", error=VotesError)) == [(1, {})]
