"""Draw the small PNGs the image format examples point at (run once; output is committed).

    python examples/exemplars/make_images.py

They are simple drawn scenes, not generated art and not expert-rated data.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).parent / "images"
SIZE = 96


def scene(name: str, sky: str, ground: str, shapes: list[tuple[str, str, tuple]]) -> None:
    img = Image.new("RGB", (SIZE, SIZE), sky)
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, SIZE * 2 // 3, SIZE, SIZE), fill=ground)
    for kind, colour, box in shapes:
        getattr(draw, kind)(box, fill=colour)
    img.save(HERE / f"{name}.png", optimize=True)


def main() -> None:
    HERE.mkdir(exist_ok=True)
    scene("oe-harbour", "#8fa3b8", "#3b5368", [("rectangle", "#6b4f3a", (20, 50, 44, 66))])
    scene("oe-desert", "#f2c27b", "#d9a15b", [("ellipse", "#fff3c4", (60, 10, 84, 34))])
    scene("oe-forest", "#a7c4a0", "#2f5d34", [("polygon", "#1f4023", (30, 64, 45, 20, 60, 64))])
    scene("oe-night", "#101830", "#202a40", [("ellipse", "#e8e8f0", (14, 12, 30, 28))])
    scene("co-cube", "#ffffff", "#c8c8c8", [("rectangle", "#d02020", (34, 40, 62, 68))])
    scene("co-kites", "#9cd0f0", "#5aa050", [("polygon", "#f0d020", (20, 20, 30, 10, 40, 20))])
    scene("co-cups", "#f5efe6", "#8a6a4a", [("rectangle", "#2050c0", (20, 50, 34, 66))])
    scene("co-sign", "#d8d8d8", "#707070", [("rectangle", "#208040", (24, 24, 72, 48))])


if __name__ == "__main__":
    main()
