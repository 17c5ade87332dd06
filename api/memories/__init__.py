"""Exemplar memories over HTTP: ``/v1/memories`` (list, read, search, add, repair)."""
