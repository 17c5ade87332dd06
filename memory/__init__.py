"""Exemplar memories: encoders, the FAISS store and builder, manifests as data (lowest floor).

A memory is exemplars (JSONL) + an encoder + a FAISS index + a manifest; the engine retrieves
the nearest exemplars to calibrate its scores. Modules: :mod:`memory.memory` (one memory),
:mod:`memory.store` (named memories on disk), :mod:`memory.encoders` (registry),
:mod:`memory.index`, :mod:`memory.retrieval`, :mod:`memory.sources` (dataset importers) and
:mod:`memory.paths` (where user data lives); :mod:`memory.config_env` is the settings
machinery every floor's settings models derive from (renamed variables that warn, comma
lists). Never imports ``judge``, ``skills``, ``api`` or
``eval``.
"""
