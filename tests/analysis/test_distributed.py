"""Data parallel: each process captures its share of the items and every process ends with all of them."""

from __future__ import annotations

import json
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from ambi_plugin.analysis.driver import gather, is_main_process, rank_and_world, shard


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank: int, world: int, port: int, out: dict) -> None:
    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)})
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        items = [f"img{i}" for i in range(7)]
        mine = shard(items)
        local = {i: torch.full((2, 3), float(items.index(i))).numpy() for i in mine}
        merged = {}
        for part in gather(local):
            merged.update(part)
        out[rank] = (
            rank_and_world(),
            is_main_process(),
            mine,
            sorted(merged),
            [float(v[0, 0]) for _, v in sorted(merged.items())],
        )
    finally:
        dist.destroy_process_group()


def test_shard_and_gather_across_two_processes():
    with mp.Manager() as manager:
        out = manager.dict()
        mp.spawn(_worker, args=(2, _free_port(), out), nprocs=2, join=True)
        res = dict(out)
    assert res[0][0] == (0, 2) and res[1][0] == (1, 2)
    assert res[0][1] is True and res[1][1] is False
    assert res[0][2] == ["img0", "img2", "img4", "img6"] and res[1][2] == ["img1", "img3", "img5"]
    everything = [f"img{i}" for i in range(7)]
    assert res[0][3] == res[1][3] == everything
    assert res[0][4] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def test_single_process_gather_is_identity():
    assert gather({"a": 1}) == [{"a": 1}]
    assert shard([1, 2, 3]) == [1, 2, 3] and rank_and_world() == (0, 1)


def _capture_worker(rank: int, world: int, port: int, model_dir: str, records: str, out: str, result: dict) -> None:
    """One data-parallel process: lmms-eval's qwen2_5_vl backend + the real capture, sharded and gathered (gloo)."""
    from ambi_plugin.analysis.collect import capture_category, load_items
    from ambi_plugin.cli.demo import TINY_MODEL_ARGS
    from ambi_plugin.lmms.analysis_driver import load_backend

    torch.set_num_threads(1)
    lm = load_backend("qwen2_5_vl", f"pretrained={model_dir},{TINY_MODEL_ARGS}")  # before the group: one CPU replica
    if world > 1:
        os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)})
        dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        summary = capture_category(lm, load_items(records, "bistable"), out, category="bistable", rule="differs",
                                   gen_kwargs={"max_new_tokens": 3})  # fmt: skip
        result[rank] = (rank_and_world(lm), summary.n_items)
    finally:
        if world > 1:
            dist.destroy_process_group()


def _records(root) -> str:
    from PIL import Image

    rows = []
    for i in range(3):
        Image.new("RGB", (64, 48), (60 * i, 120, 200 - 50 * i)).save(root / f"img{i}.png")
        rows.append({"id": f"b{i}", "benchmark": "ambibench", "category": "bistable", "task_type": "open",
                     "image": f"img{i}.png", "views": [{"name": "i1", "labels": ["duck"]},
                                                       {"name": "i2", "labels": ["rabbit"]}]})  # fmt: skip
    (root / "bistable_open.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(root / "bistable_open.jsonl")


def test_two_process_capture_equals_one_process(tmp_path):
    """The real capture path on 2 CPU processes (gloo): each captures its share, rank 0 writes everything."""
    import numpy as np

    from ambi_plugin.analysis.collect import load_activations
    from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

    model_dir = str(make_tiny_qwen2_5_vl(tmp_path / "tiny"))
    records = _records(tmp_path)
    runs = {1: {}}
    threads = torch.get_num_threads()
    try:  # the single-process reference runs here, with the workers' thread count
        _capture_worker(0, 1, 0, model_dir, records, str(tmp_path / "w1"), runs[1])
    finally:
        torch.set_num_threads(threads)
    with mp.Manager() as manager:
        out = manager.dict()
        mp.spawn(_capture_worker, args=(2, _free_port(), model_dir, records, str(tmp_path / "w2"), out), nprocs=2,
                 join=True)  # fmt: skip
        runs[2] = dict(out)
    assert runs[1] == {0: ((0, 1), 3)}
    assert runs[2] == {0: ((0, 2), 3), 1: ((1, 2), 3)}, "both processes end with all 3 items gathered"
    split = tmp_path / "w2" / "bistable"
    lines = {r: (split / f"items.rank{r}.jsonl").read_text().splitlines() for r in (0, 1)}
    assert [json.loads(x)["id"] for x in lines[0]] == ["b0", "b2"]
    assert [json.loads(x)["id"] for x in lines[1]] == ["b1"]
    one, two = load_activations(tmp_path / "w1" / "bistable"), load_activations(split)
    assert list(two["ids"]) == list(one["ids"]) == ["b0", "b1", "b2"]
    assert two["pre"].shape == (3, 4, 4, 16)
    for key in ("pre", "post", "switched", "correct"):
        np.testing.assert_array_equal(two[key], one[key], err_msg=key)
    assert np.abs(two["pre"][0] - two["pre"][1]).max() > 0, "different images give different activations"
