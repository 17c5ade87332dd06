"""Per-item confidence: how sure the judge is of each verdict, criterion and score
(docs/confidence.md).

One module per method (``samples``, ``swap``, ``panel``, ``logprobs``, ``annotators``),
registered in :mod:`judge.confidence.base`; :mod:`judge.confidence.spec` parses the option,
:mod:`judge.confidence.ballot` turns the votes a method collected into a confidence, and
:mod:`judge.confidence.attach` puts it on the result's items.
"""
