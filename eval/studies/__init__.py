"""Prompt-proficiency studies: task suites, checklists, prompters, the runner and its report.

The parts (docs/design.md#studies): :mod:`eval.studies.suite` reads task suites,
:mod:`eval.studies.checklists` generates missing checklists, :mod:`eval.studies.prompters` writes
prompts (people's files or MLLMs), T2I backends live in :mod:`eval.t2i`, the runner in
:mod:`eval.studies.runner` and the report in :mod:`eval.studies.report`.
"""
