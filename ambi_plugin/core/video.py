"""Fixed video frame sampling, so every model sees the same frames of a video item.

``sample_frames(path, n)`` decodes the video (PyAV) and returns ``n`` RGB frames at indices
``round(linspace(0, total - 1, n))``: uniform over the clip, first and last frame included. A clip
with fewer than ``n`` frames gives each of its frames once. Task YAMLs choose it with
``video_frames: n`` in ``lmms_eval_specific_kwargs`` (AmbiBench motion video: 8); without it the
video path is handed to the model backend, which then samples with its own settings.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def frame_indices(total: int, n: int) -> list[int]:
    """``n`` indices spread uniformly over ``total`` frames, first and last included, no repeats."""
    if total <= 0 or n <= 0:
        return []
    if n >= total:
        return list(range(total))
    return sorted({int(i) for i in np.round(np.linspace(0, total - 1, n))})


def sample_frames(path: str, n: int, *, rid: Any = None) -> list:
    """``n`` uniformly sampled frames of the video at ``path`` as RGB PIL images."""
    try:
        import av
    except ImportError as exc:  # pragma: no cover - lmms-eval brings av
        raise ImportError("sampling video frames needs PyAV: pip install 'ambi-plugin[lmms]'") from exc
    try:
        with av.open(str(path)) as container:
            frames = [f.to_image().convert("RGB") for f in container.decode(video=0)]
    except Exception as exc:  # noqa: BLE001 - re-raised with context
        raise OSError(
            f"record id={rid!r}, field 'video': cannot decode {path!r} ({type(exc).__name__}: {exc})"
        ) from None
    if not frames:
        raise OSError(f"record id={rid!r}, field 'video': {path!r} holds no video frames")
    return [frames[i] for i in frame_indices(len(frames), n)]


__all__ = ["frame_indices", "sample_frames"]
