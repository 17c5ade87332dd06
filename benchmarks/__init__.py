"""benchmarks."""
