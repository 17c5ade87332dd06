"""Edit instructions by image category and edit type (``judge tasks edits``).

Example:
    >>> from eval.edit_tasks import load_categories
    >>> sorted(load_categories())[:3]
    ['animals', 'artworks', 'interiors']
"""

from eval.edit_tasks.cards import CategoryCard, load_categories
from eval.edit_tasks.generate import generate
from eval.edit_tasks.importer import import_csv

__all__ = ["CategoryCard", "generate", "import_csv", "load_categories"]
