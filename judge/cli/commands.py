"""Registry of CLI sub-commands; each module registers one verb."""

from __future__ import annotations

from collections.abc import Callable

from judge.cli import (
    bench_cmd,
    compare_cmd,
    edit_bench_cmd,
    memory_cmd,
    meta_eval_cmd,
    score_cmd,
    serve_cmd,
    skills_cmd,
)
from judge.modes.compare import bench as compare_bench

Register = Callable[[object], None]

REGISTRY: list[Register] = [
    score_cmd.register,
    compare_cmd.register,
    compare_bench.register,
    skills_cmd.register,
    memory_cmd.register,
    meta_eval_cmd.register,
    serve_cmd.register,
    bench_cmd.register,
    bench_cmd.register_load,
    __import__("judge.cli.leaderboard_cmd", fromlist=["register"]).register,
    edit_bench_cmd.register,
]
