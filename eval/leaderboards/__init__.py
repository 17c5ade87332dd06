"""Leaderboards from pairwise votes: Bradley–Terry, Elo, win rate, bootstrap CIs, plots.

Example:
    >>> from eval.leaderboards import Vote, build_leaderboard
    >>> votes = [Vote("p1", "x", "y", "a", "overall"), Vote("p2", "y", "x", "b", "overall"),
    ...          Vote("p3", "x", "y", "b", "overall")]
    >>> [m["model"] for m in build_leaderboard(votes, method="bt", n_boot=0)["models"]]
    ['x', 'y']
"""

from eval.leaderboards.board import build_leaderboard, build_leaderboards, render_table
from eval.leaderboards.votes import Vote, VotesError, read_votes, write_votes

__all__ = [
    "Vote",
    "VotesError",
    "build_leaderboard",
    "build_leaderboards",
    "read_votes",
    "render_table",
    "write_votes",
]
