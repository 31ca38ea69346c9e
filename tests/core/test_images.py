"""core.images.decode: a truncated file is an error whatever PIL's global LOAD_TRUNCATED_IMAGES says
(lmms-eval sets it to True at import), and a complete file decodes to the same pixels as PIL's own load."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image, ImageFile

from ambi_plugin.core.images import TruncatedImageError, decode

FORMATS = [("PNG", {}), ("PNG", {"interlace": 1}), ("JPEG", {}), ("JPEG", {"progressive": True}), ("GIF", {}),
           ("BMP", {}), ("TIFF", {})]  # fmt: skip


def _encoded(fmt: str, kwargs: dict) -> bytes:
    rng = np.random.default_rng(7)
    buf = io.BytesIO()
    Image.fromarray((rng.random((60, 44, 3)) * 255).astype("uint8")).save(buf, fmt, **kwargs)
    return buf.getvalue()


@pytest.fixture(params=[True, False], ids=["harness-policy", "pil-default"])
def truncated_policy(request, monkeypatch):
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", request.param)
    return request.param


@pytest.mark.parametrize(("fmt", "kwargs"), FORMATS, ids=[f"{f}{'-' + str(k) if k else ''}" for f, k in FORMATS])
def test_truncated_files_raise_and_complete_ones_decode(truncated_policy, fmt, kwargs):
    raw = _encoded(fmt, kwargs)
    with Image.open(io.BytesIO(raw)) as ref:
        want = np.asarray(ref.convert("RGB"))
    assert np.array_equal(np.asarray(decode(raw)), want)
    for frac in (0.2, 0.5, 0.9):
        with pytest.raises(OSError):  # TruncatedImageError, or PIL's own error under its default policy
            decode(raw[: int(len(raw) * frac)])


def test_the_harness_policy_gives_our_error(truncated_policy, tmp_path):
    path = tmp_path / "cut.png"
    path.write_bytes(_encoded("PNG", {})[:500])
    if truncated_policy:  # PIL would fill the image with grey; we refuse it
        with pytest.raises(TruncatedImageError, match="truncated"):
            decode(path)
    else:
        with pytest.raises(OSError):
            decode(path)


def test_global_policy_is_left_as_found(monkeypatch):
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)
    with pytest.raises(TruncatedImageError):
        raw = _encoded("JPEG", {})
        decode(raw[: len(raw) * 4 // 5])
    assert ImageFile.LOAD_TRUNCATED_IMAGES is True
