"""Benchmarks (harness, not product): ``python -m benchmarks.<name>``."""
