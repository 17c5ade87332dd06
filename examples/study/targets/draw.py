"""Draw the IM target images of the example study suite (run from the repository root).

    python examples/study/targets/draw.py

Every picture is made of plain shapes and Pillow's bundled font, drawn here from scratch, so the
images are ours to ship. The output is deterministic: re-running rewrites identical files.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent
SIZE = (512, 512)


def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def balloons_house() -> Image.Image:
    """Three red balloons floating above a small blue house, sun top right, green grass."""
    img = Image.new("RGB", SIZE, (190, 225, 250))
    d = ImageDraw.Draw(img)
    d.rectangle([0, 400, 512, 512], fill=(90, 170, 70))  # grass
    d.ellipse([410, 30, 480, 100], fill=(255, 210, 40))  # sun
    d.rectangle([176, 290, 336, 410], fill=(40, 80, 200))  # house body
    d.polygon([(160, 292), (256, 220), (352, 292)], fill=(120, 60, 40))  # roof
    d.rectangle([236, 345, 276, 410], fill=(250, 245, 235))  # door
    d.rectangle([196, 315, 226, 340], fill=(250, 245, 235))  # window
    for cx, cy in [(196, 95), (256, 70), (316, 95)]:
        d.line([(cx, cy + 36), (256, 222)], fill=(60, 60, 60), width=2)  # strings to the roof
        d.ellipse([cx - 26, cy - 34, cx + 26, cy + 34], fill=(220, 30, 40))
    return img


def open_sign() -> Image.Image:
    """A green door with a window; a white-on-green OPEN sign hangs in it; two flower pots."""
    img = Image.new("RGB", SIZE, (235, 225, 205))  # wall
    d = ImageDraw.Draw(img)
    d.rectangle([156, 60, 356, 470], fill=(30, 110, 70))  # door
    d.rectangle([186, 95, 326, 250], fill=(200, 225, 240))  # door window
    d.line([(226, 95), (256, 130), (286, 95)], fill=(80, 60, 40), width=3)  # cord
    d.rectangle([196, 130, 316, 190], fill=(20, 140, 60), outline=(255, 255, 255), width=3)
    d.text((256, 160), "OPEN", fill=(255, 255, 255), font=font(40), anchor="mm")
    d.ellipse([320, 290, 336, 306], fill=(200, 170, 60))  # door knob
    d.rectangle([0, 470, 512, 512], fill=(150, 150, 150))  # pavement
    for x in (60, 392):
        d.polygon([(x, 420), (x + 60, 420), (x + 50, 470), (x + 10, 470)], fill=(190, 90, 50))
        for dx, colour in [(12, (230, 60, 120)), (30, (250, 200, 40)), (48, (230, 60, 120))]:
            d.ellipse([x + dx - 10, 392, x + dx + 10, 412], fill=colour)
        d.rectangle([x + 5, 408, x + 55, 420], fill=(60, 140, 60))
    return img


def sunset_peaks() -> Image.Image:
    """Minimal poster: a big orange sun between two dark peaks on a cream ground."""
    img = Image.new("RGB", SIZE, (245, 236, 214))
    d = ImageDraw.Draw(img)
    d.ellipse([166, 120, 346, 300], fill=(240, 130, 40))  # sun
    d.polygon([(20, 420), (150, 230), (280, 420)], fill=(40, 40, 55))  # left peak
    d.polygon([(232, 420), (362, 210), (492, 420)], fill=(40, 40, 55))  # right peak
    d.rectangle([20, 420, 492, 426], fill=(40, 40, 55))  # horizon line
    d.rectangle([20, 20, 492, 492], outline=(40, 40, 55), width=4)  # frame
    return img


def pencils_note() -> Image.Image:
    """Four pencils side by side (red, green, blue, yellow) and a note card saying TODO."""
    img = Image.new("RGB", SIZE, (250, 250, 250))
    d = ImageDraw.Draw(img)
    colours = [(210, 40, 40), (40, 160, 70), (40, 80, 200), (240, 200, 30)]
    for k, colour in enumerate(colours):
        x = 60 + k * 60
        d.rectangle([x, 150, x + 34, 400], fill=colour)
        d.polygon([(x, 150), (x + 17, 100), (x + 34, 150)], fill=(235, 200, 150))  # wood
        d.polygon([(x + 11, 117), (x + 17, 100), (x + 23, 117)], fill=(40, 40, 40))  # lead
    d.rectangle([330, 200, 470, 320], fill=(255, 240, 120), outline=(200, 180, 60), width=2)
    d.text((400, 260), "TODO", fill=(30, 30, 30), font=font(36), anchor="mm")
    return img


TARGETS = {
    "balloons_house.png": balloons_house,
    "open_sign.png": open_sign,
    "sunset_peaks.png": sunset_peaks,
    "pencils_note.png": pencils_note,
}

if __name__ == "__main__":
    for name, draw in TARGETS.items():
        path = HERE / name
        draw().save(path, "PNG", optimize=True)
        print(f"{path}: {path.stat().st_size} bytes")
