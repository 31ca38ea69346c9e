"""Fixed video frame sampling, and the visual hook handing frames (or the file) to the model."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ambi_plugin.core.video import frame_indices, sample_frames
from ambi_plugin.runtime.hooks import doc_to_visual


def test_frame_indices():
    assert frame_indices(100, 8) == [0, 14, 28, 42, 57, 71, 85, 99]
    assert frame_indices(5, 8) == [0, 1, 2, 3, 4]
    assert frame_indices(0, 8) == [] and frame_indices(10, 0) == []
    assert frame_indices(12, 2) == [0, 11]


@pytest.fixture
def clip(tmp_path):
    import av  # in the `lmms` extra, which the tests need throughout

    path = tmp_path / "clip.mp4"
    with av.open(str(path), "w") as c:
        s = c.add_stream("mpeg4", rate=8)
        s.width, s.height, s.pix_fmt = 64, 48, "yuv420p"
        for i in range(12):  # frame i is a flat gray of 20 * i
            frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), 20 * i, np.uint8), format="rgb24")
            for p in s.encode(frame):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    return path


def test_sample_frames_are_the_uniform_ones(clip):
    frames = sample_frames(str(clip), 4)
    assert [f.size for f in frames] == [(64, 48)] * 4
    means = [float(np.asarray(f).mean()) for f in frames]
    want = [20 * i for i in frame_indices(12, 4)]  # 0, 4, 7, 11 -> 0, 80, 140, 220
    assert means == pytest.approx(want, abs=6)


def test_visual_hook_samples_frames_when_asked(clip):
    doc = {"record": json.dumps({"id": "v", "video": str(clip)})}
    assert doc_to_visual(doc) == [str(clip)]  # no setting: the file, for the backend to sample
    frames = doc_to_visual(doc, {"video_frames": 8})
    assert len(frames) == 8 and all(hasattr(f, "convert") for f in frames)


def test_unreadable_video_names_the_record(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video")
    with pytest.raises(OSError, match="record id='v7', field 'video'"):
        sample_frames(str(bad), 8, rid="v7")
