"""The ``compare`` mode (docs/design.md#comparison): pairwise judging with both orders asked."""

from judge.modes import register_mode
from judge.modes.compare.mode import CompareMode

MODE = register_mode(CompareMode())
