"""File handling every floor shares, kept at the lowest floor that needs it (memory reads
JSONL and writes atomically too; skills, judge, api and eval import it from here):

- :mod:`memory.io.jsonl` — reading JSON-lines files, with numbered errors and one policy for
  bad lines;
- :mod:`memory.io.atomic` — :func:`~memory.io.atomic.write_atomic`, a file replaced whole or
  not at all.
"""
