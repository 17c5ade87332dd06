"""Image-edit backends (image-to-image): any litellm model serving ``/images/edits``, an
OpenAI-compatible edit endpoint, or a deterministic built-in demo editor (NOT a model), behind
one :class:`ImageEditor` — configured as the T2I backends are (:mod:`eval.t2i`).

Example:
    >>> import asyncio, io
    >>> from PIL import Image
    >>> buf = io.BytesIO(); Image.new("RGB", (64, 64), "grey").save(buf, "PNG")
    >>> spec = EditorSpec(id="demo", model="builtin/editor")
    >>> asyncio.run(ImageEditor().edit(spec, buf.getvalue(), "Remove the cup.", 1)).status
    'ok'
"""

from eval.i2i.builtin import (
    EDITORS,
    LABEL,
    demo_edit,
    no_edit,
    register_editor,
)
from eval.i2i.editor import ImageEditor
from eval.i2i.spec import EditorSpec, load_editors, parse_editors

__all__ = [
    "EDITORS",
    "LABEL",
    "EditorSpec",
    "ImageEditor",
    "demo_edit",
    "load_editors",
    "no_edit",
    "parse_editors",
    "register_editor",
]
