"""Exemplar memories: encoders, FAISS store, builder; manifests as data (DESIGN.md §6).

Filled in by the memory issue; the engine already carries exemplars through
:class:`skills.types.Exemplar` and reports them in results.
"""
