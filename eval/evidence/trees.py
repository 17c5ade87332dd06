"""Reply trees: the context of the relevant posts, one tree per main post.

For every relevant post the tree of its main post (the top of its reply chain) gets the post,
its ancestor chain and its direct replies; posts it quotes come along as quoted context.
Posts repeated inside a tree (same author, text and images) collapse to the earliest, and a
tree whose main post repeats an earlier tree's (a repost) is dropped (its posts are named in
the kept tree's ``duplicates``).

Example:
    >>> from datetime import datetime, UTC
    >>> t = datetime(2024, 1, 1, tzinfo=UTC)
    >>> ps = [Post(id="a", text="prompt: a fox", created_at=t, author="x"),
    ...       Post(id="b", text="nice", created_at=t, author="y", reply_to="a")]
    >>> [(tr.root, [p.id for p in tr.members]) for tr in build_trees(ps, {"a"})]
    [('a', ['a', 'b'])]
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from eval.evidence.posts import Post

MAX_DEPTH = 200


@dataclass
class Tree:
    """One main post's context."""

    root: str
    members: list[Post]
    relevant: list[str]
    quoted: list[Post] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)

    @property
    def post_ids(self) -> list[str]:
        """Every post the tree shows (members, then quoted)."""
        return [p.id for p in self.members] + [p.id for p in self.quoted]

    def content_hash(self) -> str:
        """Hash of the main post's content (id left out), to find reposted threads."""
        return hashlib.sha256(_fingerprint(self.members[0]).encode()).hexdigest()


def _fingerprint(p: Post) -> str:
    text = " ".join(p.text.lower().split())
    return f"{p.author}\x00{text}\x00{'|'.join(p.images)}\x1e"


def chain(post_id: str, by_id: dict[str, Post]) -> list[str]:
    """``post_id`` and its ancestors, top first (a missing parent or a cycle ends it)."""
    out: list[str] = []
    seen: set[str] = set()
    cur: str | None = post_id
    while cur is not None and cur in by_id and cur not in seen and len(out) < MAX_DEPTH:
        seen.add(cur)
        out.append(cur)
        cur = by_id[cur].reply_to
    return out[::-1]


def build_trees(posts: Iterable[Post], relevant: set[str]) -> list[Tree]:
    """The trees of the relevant posts, in order of their main posts' times."""
    posts = list(posts)
    by_id = {p.id: p for p in posts}
    replies: dict[str, list[str]] = {}
    for p in posts:
        if p.reply_to is not None:
            replies.setdefault(p.reply_to, []).append(p.id)
    grouped: dict[str, tuple[set[str], list[str]]] = {}
    for rid in sorted(relevant & by_id.keys()):
        line = chain(rid, by_id)
        members, rel = grouped.setdefault(line[0], (set(), []))
        members.update(line)
        members.update(replies.get(rid, []))
        rel.append(rid)
    trees: list[Tree] = []
    seen_content: dict[str, Tree] = {}
    order = sorted(grouped, key=lambda r: (by_id[r].created_at, r))
    for root in order:
        ids, rel = grouped[root]
        kept: list[Post] = []
        prints: set[str] = set()
        dups: list[str] = []
        for p in sorted((by_id[i] for i in ids), key=lambda p: (p.created_at, p.id)):
            fp = _fingerprint(p)
            if fp in prints:
                dups.append(p.id)
                continue
            prints.add(fp)
            kept.append(p)
        member_ids = {p.id for p in kept}
        quoted = [
            by_id[q]
            for q in dict.fromkeys(q for p in kept for q in p.quotes)
            if q in by_id and q not in member_ids
        ]
        tree = Tree(root, kept, sorted(set(rel) & member_ids), quoted, dups)
        key = tree.content_hash()
        if key in seen_content:
            seen_content[key].duplicates.extend(tree.post_ids)
            continue
        seen_content[key] = tree
        trees.append(tree)
    return trees


def image_id(post_id: str, k: int) -> str:
    """The name an attached image has in prompts and answers."""
    return f"{post_id}#{k}"


def render_tree(tree: Tree) -> str:
    """The tree as plain text for a data block: one header line per post, then its text."""
    lines: list[str] = []
    for p in tree.members:
        head = f"post {p.id} | by {p.author} | {p.created_at.isoformat()}"
        if p.reply_to:
            head += f" | reply to {p.reply_to}"
        if p.quotes:
            head += f" | quotes {', '.join(p.quotes)}"
        lines.append(head)
        lines.append(p.text)
        lines.extend(f"[image {image_id(p.id, k)}]" for k in range(len(p.images)))
        lines.append("")
    for p in tree.quoted:
        lines.append(f"quoted post {p.id} | by {p.author} | {p.created_at.isoformat()}")
        lines.append(p.text)
        lines.extend(f"[image {image_id(p.id, k)}]" for k in range(len(p.images)))
        lines.append("")
    return "\n".join(lines).strip()
