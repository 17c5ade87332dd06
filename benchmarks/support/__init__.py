"""benchmarks/support."""
