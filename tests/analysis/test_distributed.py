"""Data parallel: each process captures its share of the items and every process ends with all of them."""

from __future__ import annotations

import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from ambi_plugin.analysis.backend import gather, is_main_process, rank_and_world, shard


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
