"""``python -m benchmarks.memory`` is quick by default; ``--full`` is the large run."""

from __future__ import annotations

from benchmarks.memory import config_from_args, parser


def config(*argv: str):
    return config_from_args(parser().parse_args(argv))


def test_quick_by_default_full_on_request_explicit_flags_win() -> None:
    quick = config()
    assert max(quick.sizes) <= 10_000 and quick.queries == 50
    full = config("--full")
    assert full.sizes == (1000, 100_000, 1_000_000) and full.queries == 200
    assert config("--full", "--sizes", "2k", "--queries", "7").sizes == (2000,)
    assert config("--full", "--sizes", "2k", "--queries", "7").queries == 7
