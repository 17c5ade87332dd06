"""The workflows around the judge, one package each (they use :mod:`judge`; nothing below
imports them):

- :mod:`eval.metaeval` — agreement with human labels (``judge meta-eval``);
- :mod:`eval.leaderboards` — Bradley–Terry, Elo and win-rate boards from votes;
- :mod:`eval.studies` — prompt-proficiency studies: task suites, prompters, runner, report;
- :mod:`eval.probing` — adaptive probing of a T2I model (topic trees);
- :mod:`eval.campaigns` — human label campaigns: items, quality control, agreement, exports;
- :mod:`eval.evidence` — task suites from community posts, and run reports;
- :mod:`eval.edit_tasks` — edit instructions by type;
- :mod:`eval.datasets` — adapters from labelled datasets to judge submissions;
- :mod:`eval.t2i` — text-to-image generation for studies and probes;
- :mod:`eval.i2i` — image edits (image-to-image) for edit studies and editor probes;
- :mod:`eval.tasks` — the ``judge tasks`` verb, calling studies, evidence and edit_tasks;
- :mod:`eval.kit` — the workflows' shared floor: the judge client, the admin client of the
  service, the journal and the statistics (:mod:`eval.kit.stats`); JSONL reading and atomic
  writes are one floor lower (:mod:`memory.io`), data URLs in :mod:`judge.io.data_urls`.

A workflow imports the kit, never another workflow's internals (docs: extending, "Add a
workflow").
"""
