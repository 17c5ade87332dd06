"""The workflows around the judge, one package each (they use :mod:`judge`; nothing below
imports them):

- :mod:`eval.metaeval` — agreement with human labels (``judge meta-eval``);
- :mod:`eval.leaderboards` — Bradley–Terry, Elo and win-rate boards from votes;
- :mod:`eval.studies` — prompt-proficiency studies: task suites, prompters, runner, report;
- :mod:`eval.probing` — adaptive probing of a T2I model (topic trees);
- :mod:`eval.datasets` — adapters from labelled datasets to judge submissions;
- :mod:`eval.t2i` — text-to-image generation for studies and probes;
- :mod:`eval.campaigns` — human label campaigns on the service;
- :mod:`eval.evidence` and :mod:`eval.edit_tasks` — task suites from posts, edit instructions;
- :mod:`eval.tasks` — the ``judge tasks`` verb, calling studies, evidence and edit_tasks;
- :mod:`eval.kit` — what the workflows share: one judge client, one admin client of the
  service and one crash-safe journal.
"""
