"""The ``score`` mode (DESIGN.md §7): a Submission in, a Result out."""

from judge.modes import register_mode
from judge.modes.score.mode import ScoreMode

MODE = register_mode(ScoreMode())
