"""The ``compare`` mode (DESIGN.md §10): pairwise judging with both orders asked."""

from judge.modes import register_mode
from judge.modes.compare.mode import CompareMode

MODE = register_mode(CompareMode())
