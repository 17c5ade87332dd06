"""The ``score`` mode: a Submission in, a Result out
(docs/design.md#submission-and-result-mode-score)."""

from judge.modes.score.mode import ScoreMode

MODE = ScoreMode()
