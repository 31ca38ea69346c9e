"""Where the attention heads are: the language model's ``o_proj`` modules, found by name, and their head layout.

The input of ``self_attn.o_proj`` is ``[batch, seq, n_heads * head_dim]``, head-major: ``x.view(B, S, H, D)[..., h, :]``
is query head ``h``'s output (softmax(QK^T) V for that head, before the output projection). Under grouped-query
attention (fewer K/V heads than query heads) the o_proj input still has one slice per *query* head, which is what a
"head" means here. Modules are found by name (``...layers.<i>.self_attn.o_proj``), skipping vision towers, because the
attribute paths moved between transformers releases (``model.layers`` / ``model.language_model.layers`` /
``language_model.model.layers``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_PATTERN", "HeadLayout", "HeadLayoutError", "find_head_modules", "head_layout", "unwrap_model"]

#: Module names of the language model's attention output projections; group 1 is the layer index.
DEFAULT_PATTERN = r"(?:^|\.)layers\.(\d+)\.self_attn\.o_proj$"
_VISION = re.compile(r"(?:^|\.)(?:visual|vision_tower|vision_model|vision_encoder|vit|mm_projector)(?:\.|$)")


class HeadLayoutError(ValueError):
    """The model's attention heads could not be located or split."""


@dataclass(frozen=True)
class HeadLayout:
    """Language-model layers (by index) and their head split: ``modules[i]`` is the o_proj of layer ``i``."""

    names: tuple[str, ...]
    n_heads: int
    head_dim: int
    n_kv_heads: int | None = None

    @property
    def n_layers(self) -> int:
        return len(self.names)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_layers, self.n_heads)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_layers": self.n_layers,
            "n_heads": self.n_heads,
            "head_dim": self.head_dim,
            "n_kv_heads": self.n_kv_heads,
            "modules": list(self.names),
        }


def unwrap_model(model: Any) -> Any:
    """The torch module inside an lmms-eval backend (``.model``), a DDP/accelerate wrapper (``.module``), or itself."""
    import torch

    seen = 0
    while not isinstance(model, torch.nn.Module) and seen < 4:
        inner = getattr(model, "model", None)
        if inner is None:
            inner = getattr(model, "_model", None)
        if inner is None:
            break
        model, seen = inner, seen + 1
    while hasattr(model, "module") and isinstance(model.module, torch.nn.Module) and seen < 8:
        model, seen = model.module, seen + 1
    if not isinstance(model, torch.nn.Module):
        raise HeadLayoutError(f"expected a torch model or an lmms-eval backend holding one, got {type(model).__name__}")
    return model


def find_head_modules(model: Any, pattern: str = DEFAULT_PATTERN) -> dict[int, tuple[str, Any]]:
    """``{layer index: (module name, module)}`` of every language-model o_proj matching ``pattern``."""
    model = unwrap_model(model)
    rx = re.compile(pattern)
    found: dict[int, tuple[str, Any]] = {}
    for name, module in model.named_modules():
        m = rx.search(name)
        if not m or _VISION.search(name):
            continue
        layer = int(m.group(1))
        if layer in found:
            raise HeadLayoutError(
                f"two modules match layer {layer}: {found[layer][0]!r} and {name!r}; pass a narrower module pattern"
            )
        found[layer] = (name, module)
    if not found:
        raise HeadLayoutError(
            f"no module of {type(model).__name__} matches {pattern!r} (outside the vision tower); pass the pattern of "
            "the language model's attention output projection (e.g. 'layers\\.(\\d+)\\.attention\\.wo$' for InternLM2)"
        )
    if sorted(found) != list(range(len(found))):
        raise HeadLayoutError(f"layer indices matched by {pattern!r} are not 0..N-1: {sorted(found)}")
    return dict(sorted(found.items()))


def _config_value(config: Any, key: str) -> int | None:
    for sub in ("text_config", "llm_config", "language_config"):
        inner = getattr(config, sub, None)
        if inner is not None and getattr(inner, key, None) is not None:
            return int(getattr(inner, key))
    val = getattr(config, key, None)
    return int(val) if val is not None else None


def head_layout(model: Any, *, pattern: str = DEFAULT_PATTERN, n_heads: int | None = None) -> HeadLayout:
    """The language model's head layout, from its config (``num_attention_heads``) and the o_proj input width."""
    found = find_head_modules(model, pattern)
    torch_model = unwrap_model(model)
    config = getattr(torch_model, "config", None)
    heads = n_heads or (_config_value(config, "num_attention_heads") if config is not None else None)
    if not heads:
        raise HeadLayoutError("the model config has no num_attention_heads; pass n_heads explicitly")
    widths = {getattr(mod, "in_features", None) for _, mod in found.values()}
    if len(widths) != 1 or None in widths:
        raise HeadLayoutError(f"o_proj modules have no single in_features ({sorted(map(str, widths))})")
    width = widths.pop()
    if width % heads:
        raise HeadLayoutError(f"o_proj input width {width} is not a multiple of {heads} heads")
    kv = _config_value(config, "num_key_value_heads") if config is not None else None
    return HeadLayout(tuple(name for name, _ in found.values()), heads, width // heads, kv)
