"""Cards for your own labels: one per target, read from the memory built from those labels.

With ``judge meta-eval --dataset csv --cv lopo`` (or ``--memory-from``) and no ``--skills``,
each ``target.NAME`` gets a card scoring the image dimension ``NAME`` from the ``csv-image``
memory, so every target is estimated offline (the local backend's memory estimate) or, with a
model, calibrated by your exemplars. The card text is data: ``label_card.toml`` beside this
module.

Example:
    >>> import tempfile
    >>> from skills.registry import SkillRegistry
    >>> folder = Path(tempfile.mkdtemp())
    >>> write_label_cards({"quality": "mos"}, "csv-image", folder)
    ['label_quality']
    >>> SkillRegistry.from_dirs([folder]).card("label_quality").memory
    'csv-image'
"""

from __future__ import annotations

import re
from pathlib import Path
from string import Template

TEMPLATE = Path(__file__).with_name("label_card.toml")
_SAFE = re.compile(r"[^A-Za-z0-9_]+")


def card_name(target: str) -> str:
    """The card's name for a target (letters, digits and underscores)."""
    return "label_" + _SAFE.sub("_", target).strip("_").lower()


def write_label_cards(targets: dict[str, str], memory: str, folder: Path) -> list[str]:
    """Write one card per target (name → label column) into ``folder``; returns the names."""
    folder.mkdir(parents=True, exist_ok=True)
    template = Template(TEMPLATE.read_text(encoding="utf-8"))
    names = []
    for target, column in targets.items():
        name = card_name(target)
        text = template.substitute(
            name=name,
            target=target.replace('"', "'"),
            column=column.replace('"', "'"),
            memory=memory,
        )
        (folder / f"{name}.toml").write_text(text, encoding="utf-8")
        names.append(name)
    return names
