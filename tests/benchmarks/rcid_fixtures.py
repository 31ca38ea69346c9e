"""RCID test data: a folder laid out like the Hub copy (imagefolder: ``test/<type>/<class>/<file>``), with bad rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

# (type folder, class folder, file stem); the last three rows are bad on purpose. As on the Hub copy, imagefolder
# sorts the class folders and class 0 is look_like_different (4 classes: look_like_different, look_like_same,
# mystery_class, same)
HUB_ROWS = [
    ("contrast", "look_like_different", "c1"),
    ("contrast", "look_like_different", "c2"),
    ("contrast", "look_like_same", "c3"),
    ("contrast", "same", "c4"),
    ("contrast", "same", "c5"),
    ("stripe", "look_like_different", "s1"),
    ("stripe", "look_like_different", "s2"),
    ("stripe", "look_like_different", "s3"),
    ("stripe", "look_like_different", "s4"),
    ("stripe", "same", "s5"),
    ("contrast", "mystery_class", "bad_label"),
    ("filter", "look_like_different", "bad_filter"),
    ("contrast", "same", "bad_image"),
]
N_GOOD, N_BAD = 10, 3
# A release that differs from what the loader assumes: classes it does not know, a folder naming no type.
UNEXPECTED_ROWS = [
    *[("contrast", "illusion_left_darker", f"u{k}") for k in range(4)],
    *[("contrast", "no_illusion", f"v{k}") for k in range(2)],
    ("shapes", "look_like_different", "untyped"),  # a folder that names no illusion type
    ("contrast", "same", "ok1"),
]


def hub_layout(root: Path, rows: list[tuple[str, str, str]] | None = None) -> Path:
    """Write the fixture folder (``rows``: default :data:`HUB_ROWS`); ``bad_image`` holds bytes no decoder reads."""
    rng = np.random.default_rng(0)
    for ttype, label, stem in HUB_ROWS if rows is None else rows:
        path = root / "test" / ttype / label / f"{stem}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        if stem == "bad_image":
            path.write_bytes(b"\x89PNG\r\n\x1a\nnot really a png")
        else:
            Image.fromarray(rng.integers(0, 255, (24, 32, 3), dtype=np.uint8)).save(path)
    return root
