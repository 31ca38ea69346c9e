"""Drive an lmms-eval model backend (``qwen2_5_vl``, ``llava_hf``, ``internvl3``, ...) one request at a time.

The model is built by lmms-eval's own registry (``lmms_eval.models.get_model(name).create_from_arg_string``), so its
loading options work unchanged: ``device_map=auto`` spreads the layers over the GPUs of one process, and under
``accelerate launch --num_processes N`` every process holds a replica (data parallel; :func:`shard` and
:func:`gather` split the items and collect the results with ``torch.distributed``).

A request goes through the backend's own ``generate_until`` (its own chat template, image processing and decoding):
we give it a one-document ``task_dict`` and an ``Instance`` in the argument layout of its kind (chat models take
``doc_to_messages``, simple models ``doc_to_visual``). lmms-eval is imported lazily.

This is the lmms-eval side of the switch-head analysis (``ambi_plugin.analysis`` never imports a harness): importing
this module hands analysis its model driver (:func:`ambi_plugin.analysis.driver.set_driver_factory` with
:class:`BackendModel`), so whoever builds the model with :func:`load_backend` has the driver installed. The process
layout helpers (``shard``, ``gather``, ...) live in :mod:`ambi_plugin.analysis.driver` and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ambi_plugin.analysis.driver import (  # noqa: F401 - re-exported (the old analysis.backend face)
    _dist,
    gather,
    is_main_process,
    rank_and_world,
    set_driver_factory,
    shard,
)

__all__ = ["BackendModel", "gather", "is_main_process", "load_backend", "shard"]

_TASK, _SPLIT = "ambi_switch_heads", "test"


def load_backend(model: str, model_args: str = "", *, device: str | None = None) -> Any:
    """An lmms-eval model object built by lmms-eval's registry (our entry points are loaded with it)."""
    from lmms_eval import models

    cls = models.get_model(model)
    return cls.create_from_arg_string(model_args, {"batch_size": 1, "max_batch_size": None, "device": device})


class BackendModel:
    """One prompt + one image in, the backend's answer out, through its own ``generate_until``."""

    def __init__(self, lm: Any, *, gen_kwargs: dict[str, Any] | None = None) -> None:
        self.lm = lm
        self.gen_kwargs = {"max_new_tokens": 16, "temperature": 0, "until": []}
        self.gen_kwargs.update(gen_kwargs or {})

    @staticmethod
    def _doc_to_visual(doc: dict) -> list:
        from PIL import Image

        return [Image.open(path).convert("RGB") for path in doc["images"]]

    @staticmethod
    def _doc_to_messages(doc: dict) -> list[dict]:
        content = [{"type": "image", "url": img} for img in BackendModel._doc_to_visual(doc)]
        content.append({"type": "text", "text": doc["prompt"]})
        return [{"role": "user", "content": content}]

    def generate(self, prompt: str, images: Sequence[str]) -> str:
        from lmms_eval.api.instance import Instance

        doc = {"prompt": prompt, "images": list(images)}
        self.lm.task_dict = {_TASK: {_SPLIT: {0: doc}}}
        gen = dict(self.gen_kwargs)
        if getattr(self.lm, "is_simple", True):
            args = (prompt, gen, self._doc_to_visual, 0, _TASK, _SPLIT)
        else:
            args = (prompt, self._doc_to_messages, gen, 0, _TASK, _SPLIT)
        inst = Instance(
            request_type="generate_until", arguments=args, idx=0, metadata={"task": _TASK, "doc_id": 0, "repeats": 1}
        )
        out = self.lm.generate_until([inst])[0]
        return str(getattr(out, "text", out))


set_driver_factory(BackendModel)
