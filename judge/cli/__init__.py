"""The ``judge`` command line."""
