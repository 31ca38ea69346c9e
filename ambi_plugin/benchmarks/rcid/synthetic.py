"""An offline RCID copy from the procedural generators (contrast and stripe: ``synth/color.py``; filter:
``synth/filter.py``), in the canonical schema, so every RCID task runs without the release::

    ambi rcid-copy --out DIR --n 12 && AMBI_RCID_DIR=DIR lmms-eval ... --tasks ambi_rcid_all

Illusion and control images alternate; the human answers are the generators' theoretical labels.
"""

from __future__ import annotations

from pathlib import Path

from ambi_plugin.paths import replace_dir_atomically
from ambi_plugin.synth.color import NEAR_DISTANCE, contrast_question, make_contrast, make_stripe
from ambi_plugin.synth.common import BuildContext
from ambi_plugin.synth.filter import SCENES, TRUE_COLORS, filter_question, make_filter

from . import prompts as P
from .records import RcidItem, write_copy

SOURCE = "ambi_plugin procedural generators (RCID sections 3.1-3.2 without ControlNet)"


def _contrast(ctx: BuildContext, i: int, illusion: bool) -> RcidItem:
    it = make_contrast(ctx.rng("rcid_contrast", i), illusion)
    return RcidItem(
        id=f"contrast_{i:04d}",
        illusion_type="contrast",
        image=ctx.save_image(it.image, "contrast", i),
        is_illusion=illusion,
        question=contrast_question(it.layout),
        pixel=[it.pixel_answer],
        human=[it.human_answer],
        breakdown={"layout": it.layout, "rgb_distance": "near" if it.distance < NEAR_DISTANCE else "far"},
        source=SOURCE,
    )


def _stripe(ctx: BuildContext, i: int, illusion: bool) -> RcidItem:
    it = make_stripe(ctx.rng("rcid_stripe", i), illusion)
    return RcidItem(
        id=f"stripe_{i:04d}",
        illusion_type="stripe",
        image=ctx.save_image(it.image, "stripe", i),
        is_illusion=illusion,
        question=P.QUESTION["stripe"],
        pixel=[it.pixel_answer],
        human=[it.human_answer],
        breakdown={"direction": it.direction, "stripe_count": "few" if it.n_stripes < P.FEW_STRIPES else "many"},
        source=SOURCE,
        extra={"n_stripes": it.n_stripes},
    )


def _filter(ctx: BuildContext, i: int, illusion: bool) -> RcidItem:
    it = make_filter(ctx.rng("rcid_filter", i), illusion, SCENES[(i // 2) % 2], TRUE_COLORS[(i // 4) % 4])
    return RcidItem(
        id=f"filter_{i:04d}",
        illusion_type="filter",
        image=ctx.save_image(it.image, "filter", i),
        is_illusion=illusion,
        question=filter_question(it.object_name),
        pixel_colors=list(it.pixel_colors),
        human_colors=it.human_colors,
        breakdown={"scene": it.scene, "true_color": it.true_color},
        source=SOURCE,
    )


def build_synthetic(out: str | Path, *, seed: int = 0, n: int = 8) -> Path:
    """Write an RCID copy with ``n`` images per illusion type (half illusions) into ``out``; return it."""
    if n < 8:
        raise ValueError(f"n must be at least 8 (4 illusion images: 3 few-shot examples besides the query), got {n}")
    out = Path(out).expanduser().resolve()

    def build(tmp: Path) -> None:
        ctx = BuildContext(tmp, seed, n)
        (tmp / "images").mkdir(parents=True, exist_ok=True)
        items = [make(ctx, i, i % 2 == 0) for make in (_contrast, _stripe, _filter) for i in range(n)]
        write_copy(tmp, items, source=SOURCE)

    replace_dir_atomically(out, build)
    return out
