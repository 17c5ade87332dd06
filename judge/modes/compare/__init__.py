"""The ``compare`` mode (docs/design.md#comparison): pairwise judging with both orders asked."""

from judge.modes.compare.mode import CompareMode

MODE = CompareMode()
