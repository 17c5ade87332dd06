"""The workflows around the judge, one package each (they use :mod:`judge`; nothing below
imports them):

- :mod:`eval.metaeval` — agreement with human labels (``judge meta-eval``);
- :mod:`eval.leaderboards` — Bradley–Terry, Elo and win-rate boards from votes;
- :mod:`eval.studies` — prompt-proficiency studies: task suites, prompters, runner, report;
- :mod:`eval.probing` — adaptive probing of a T2I model (topic trees);
- :mod:`eval.datasets` — adapters from labelled datasets to judge submissions;
- :mod:`eval.t2i` — text-to-image generation for studies and probes;
- :mod:`eval.kit` — what the workflows share: one judge client and one crash-safe journal.
"""
