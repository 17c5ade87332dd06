"""MTCNN face detection (three cascaded CNNs) on the weights shipped in ``facenet-pytorch``.

The ``facenet-pytorch`` wheel carries the MTCNN weights (``data/pnet.pt``, ``rnet.pt``,
``onet.pt``; MIT) but its code needs torchvision and old torch pins, so only the weight
files are read from it (located without importing the package) and the three networks and
the cascade are written here: a proposal net slides over an image pyramid, a refine net and
an output net re-score resized crops, and the output net also gives five landmarks (eye
centres, nose tip, mouth corners). Inputs are uint8 RGB arrays; boxes come back as
``(left, top, right, bottom)`` floats with scores and ``(5, 2)`` landmark arrays.

Example:
    >>> weight_file("pnet.pt").endswith("pnet.pt")
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import cv2
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from skills.metrics.packaged import packaged_file

THRESHOLDS = (0.6, 0.7, 0.8)  # proposal, refine, output stage score cut-offs
PYRAMID_STEP = 0.709  # each pyramid level is this fraction of the previous one


def weight_file(name: str) -> str:
    """Path of an MTCNN weight file inside the installed ``facenet-pytorch`` wheel."""
    hint = "pip install --no-deps facenet-pytorch==2.6.0"
    return str(packaged_file("facenet_pytorch", f"data/{name}", hint))


Conv = tuple[int, int, int, tuple[int, int] | None]
"""A convolution: input channels, output channels, kernel, then the max-pooling
``(kernel, stride)`` after its PReLU, or None for none."""


class _Net(nn.Module):
    """One network of the cascade, its layers named as in the weight files.

    Convolutions ``conv1``, ``conv2``, … each with its PReLU ``prelu<i>``; for the refine and
    output nets one fully connected layer ``dense<n>`` with its PReLU on the W-major flattened
    map; then the heads ``<layer><n+1>_1``, ``_2``, …: the first gives the face probability
    (softmax), the others the box regression and (output net) the landmarks.
    """

    def __init__(self, convs: list[Conv], dense: tuple[int, int] | None, heads: tuple[int, ...]):
        super().__init__()
        self.layers: list[tuple[nn.Module, nn.Module, tuple[int, int] | None]] = []
        for n, (channels_in, channels, kernel, pool) in enumerate(convs, start=1):
            conv = self._named(f"conv{n}", nn.Conv2d(channels_in, channels, kernel))
            self.layers.append((conv, self._named(f"prelu{n}", nn.PReLU(channels)), pool))
        width, top, prefix = convs[-1][1], len(convs) + 1, "conv"
        self.dense: list[nn.Module] = []
        if dense is not None:
            linear = self._named(f"dense{top}", nn.Linear(*dense))
            self.dense = [linear, self._named(f"prelu{top}", nn.PReLU(dense[1]))]
            width, top, prefix = dense[1], top + 1, "dense"
        head = nn.Linear if dense else partial(nn.Conv2d, kernel_size=1)
        self.heads = [
            self._named(f"{prefix}{top}_{k}", head(width, size))
            for k, size in enumerate(heads, start=1)
        ]

    def _named(self, name: str, module: nn.Module) -> nn.Module:
        self.add_module(name, module)
        return module

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        for conv, prelu, pool in self.layers:
            x = prelu(conv(x))
            if pool is not None:
                x = F.max_pool2d(x, *pool, ceil_mode=True)
        if self.dense:
            linear, prelu = self.dense
            x = prelu(linear(x.permute(0, 3, 2, 1).flatten(1)))  # the weights are W-major
        prob, *rest = (head(x) for head in self.heads)
        return F.softmax(prob, dim=1)[:, 1], *rest


def _proposal() -> _Net:
    """The proposal net (P-Net): fully convolutional, slid over the image pyramid."""
    return _Net([(3, 10, 3, (2, 2)), (10, 16, 3, None), (16, 32, 3, None)], None, (2, 4))


def _refine() -> _Net:
    """The refine net (R-Net) on 24x24 crops."""
    convs: list[Conv] = [(3, 28, 3, (3, 2)), (28, 48, 3, (3, 2)), (48, 64, 2, None)]
    return _Net(convs, (576, 128), (2, 4))


def _output() -> _Net:
    """The output net (O-Net) on 48x48 crops; its third head gives the five landmarks."""
    convs: list[Conv] = [
        (3, 32, 3, (3, 2)),
        (32, 64, 3, (3, 2)),
        (64, 64, 3, (2, 2)),
        (64, 128, 2, None),
    ]
    return _Net(convs, (1152, 256), (2, 4, 10))


def _box(row: np.ndarray) -> tuple[float, float, float, float]:
    left, top, right, bottom = (float(v) for v in row)
    return left, top, right, bottom


@dataclass(frozen=True)
class Detection:
    """One face: box ``(left, top, right, bottom)``, score in [0, 1], ``(5, 2)`` landmarks."""

    box: tuple[float, float, float, float]
    score: float
    landmarks: np.ndarray  # rows: left eye, right eye (as seen), nose, mouth left, mouth right


class MTCNN:
    """The three-stage cascade; ``detect`` is thread-compatible (no state between calls)."""

    def __init__(self) -> None:
        self.nets: list[nn.Module] = []
        for net, name in ((_proposal(), "pnet.pt"), (_refine(), "rnet.pt"), (_output(), "onet.pt")):
            net.load_state_dict(torch.load(weight_file(name), map_location="cpu"))
            self.nets.append(net.eval())

    @torch.inference_mode()
    def detect(self, rgb: np.ndarray, min_face: int = 40) -> list[Detection]:
        """Faces at least ``min_face`` px wide in an ``(h, w, 3)`` uint8 RGB array."""
        image = (np.asarray(rgb, dtype=np.float32) - 127.5) * 0.0078125
        boxes = self._propose(image, min_face)
        if len(boxes):
            boxes = self._refine(image, boxes, 1, 24)
        if not len(boxes):
            return []
        boxes, marks = self._refine(image, boxes, 2, 48)
        keep = _nms(boxes[:, :4], boxes[:, 4], 0.7, by_min=True)
        return [
            Detection(_box(boxes[i, :4]), float(boxes[i, 4]), marks[i])
            for i in keep
        ]

    def _propose(self, image: np.ndarray, min_face: int) -> np.ndarray:
        h, w = image.shape[:2]
        scale, found = 12.0 / min_face, []
        while min(h, w) * scale >= 12:
            level = cv2.resize(
                image, (int(w * scale + 1), int(h * scale + 1)), interpolation=cv2.INTER_AREA
            )
            prob, reg = self.nets[0](torch.from_numpy(level).permute(2, 0, 1)[None])
            ys, xs = torch.nonzero(prob[0] >= THRESHOLDS[0], as_tuple=True)
            if len(ys):
                cells = torch.stack([xs, ys], 1).float().numpy()
                x1y1, x2y2 = np.floor((2 * cells + 1) / scale), np.floor((2 * cells + 12) / scale)
                cand = np.hstack(
                    [x1y1, x2y2, prob[0, ys, xs, None].numpy(), reg[0][:, ys, xs].T.numpy()]
                )
                found.append(cand[_nms(cand[:, :4], cand[:, 4], 0.5)])
            scale *= PYRAMID_STEP
        if not found:
            return np.zeros((0, 5))
        boxes = np.vstack(found)
        boxes = boxes[_nms(boxes[:, :4], boxes[:, 4], 0.7)]
        return _square(_regress(boxes[:, :5], boxes[:, 5:9]))

    def _refine(self, image: np.ndarray, boxes: np.ndarray, stage: int, side: int):
        crops = _crops(image, boxes, side)
        out = self.nets[stage](crops)
        score, reg = out[0].numpy(), out[1].numpy()
        keep = score > THRESHOLDS[stage]
        boxes = np.hstack([boxes[keep, :4], score[keep, None]])
        if stage == 1:
            boxes, reg = boxes, reg[keep]
            kept = _nms(boxes[:, :4], boxes[:, 4], 0.7)
            return _square(_regress(boxes[kept], reg[kept]))
        pts = out[2].numpy()[keep]
        w, h = boxes[:, 2:3] - boxes[:, 0:1] + 1, boxes[:, 3:4] - boxes[:, 1:2] + 1
        marks = np.stack(
            [w * pts[:, :5] + boxes[:, 0:1] - 1, h * pts[:, 5:] + boxes[:, 1:2] - 1], 2
        )
        return _regress(boxes, reg[keep]), marks


def _regress(boxes: np.ndarray, reg: np.ndarray) -> np.ndarray:
    w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    out = boxes.copy()
    out[:, :4] += reg * np.stack([w, h, w, h], 1)
    return out


def _square(boxes: np.ndarray) -> np.ndarray:
    out = boxes.copy()
    w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    side = np.maximum(w, h)
    out[:, 0] = boxes[:, 0] + w / 2 - side / 2
    out[:, 1] = boxes[:, 1] + h / 2 - side / 2
    out[:, 2:4] = out[:, 0:2] + side[:, None]
    return out


def _crops(image: np.ndarray, boxes: np.ndarray, side: int) -> torch.Tensor:
    """Each box cut out (zero outside the image) and resized to ``side``², as NCHW."""
    h, w = image.shape[:2]
    out = np.zeros((len(boxes), side, side, 3), np.float32)
    for k, (x1, y1, x2, y2) in enumerate(np.floor(boxes[:, :4]).astype(int)):
        x2, y2 = max(x2, x1 + 1), max(y2, y1 + 1)
        patch = np.zeros((y2 - y1, x2 - x1, 3), np.float32)
        sx, sy, ex, ey = max(x1, 0), max(y1, 0), min(x2, w), min(y2, h)
        if ex > sx and ey > sy:
            patch[sy - y1 : ey - y1, sx - x1 : ex - x1] = image[sy:ey, sx:ex]
        out[k] = cv2.resize(patch, (side, side), interpolation=cv2.INTER_AREA)
    return torch.from_numpy(out).permute(0, 3, 1, 2)


def _nms(boxes: np.ndarray, scores: np.ndarray, limit: float, by_min: bool = False) -> list[int]:
    """Greedy non-maximum suppression: overlap is IoU, or intersection / smaller area."""
    order, keep = list(np.argsort(-scores)), []
    area = (boxes[:, 2] - boxes[:, 0] + 1) * (boxes[:, 3] - boxes[:, 1] + 1)
    while order:
        i, rest = order[0], np.array(order[1:], dtype=int)
        keep.append(int(i))
        if not len(rest):
            break
        iw = np.minimum(boxes[i, 2], boxes[rest, 2]) - np.maximum(boxes[i, 0], boxes[rest, 0]) + 1
        ih = np.minimum(boxes[i, 3], boxes[rest, 3]) - np.maximum(boxes[i, 1], boxes[rest, 1]) + 1
        inter = np.clip(iw, 0, None) * np.clip(ih, 0, None)
        denom = np.minimum(area[i], area[rest]) if by_min else area[i] + area[rest] - inter
        order = list(rest[inter / denom <= limit])
    return keep
