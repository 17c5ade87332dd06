"""Adaptive probing of text-to-image models (DyEval): a topic tree whose inputs get harder as
the model under test fails, failure localisation over scene graphs, reflections, metrics, a
non-adaptive baseline and human overrides. See ``judge probe --help`` and ``/v1/probes``.

Modules: :mod:`params` (options and defaults), :mod:`tree` (nodes, tests), :mod:`writer` (LLM
calls), :mod:`generation`, :mod:`testing`, :mod:`labelling` (the judge's verdicts),
:mod:`scene_graph` + :mod:`localise` (Algorithm 1), :mod:`nodes` + :mod:`runner` (the run),
:mod:`baseline`, :mod:`metrics`, :mod:`overrides`, :mod:`journal` + :mod:`storage`
(resumability), :mod:`run_dir` + :mod:`cli` (``judge probe run``).
"""
