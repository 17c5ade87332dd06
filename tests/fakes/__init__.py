"""tests/fakes."""
