"""Figures: the switching-score heatmap (AmbiBench Figure 4 / 16) and the attention overlay (A.8).

matplotlib is imported lazily (extra ``analysis``); the Agg backend is used, so no display is needed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["save_heatmap", "save_overlay", "save_patching_plot"]


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("figures need matplotlib: pip install 'ambi-plugin[analysis]'") from None
    return plt


def save_heatmap(
    s: np.ndarray, path: str | Path, *, title: str = "", highlight: list[tuple[int, int]] | None = None
) -> Path:
    """Heads on x, layers on y (layer 0 at the bottom), colour = switching score s = 1 - cos; chosen heads boxed."""
    plt = _pyplot()
    s = np.asarray(s, dtype=float)
    n_layers, n_heads = s.shape
    fig, ax = plt.subplots(figsize=(max(4.0, 0.25 * n_heads + 2), max(3.0, 0.2 * n_layers + 1.5)))
    finite = s[np.isfinite(s)]  # a head without a score (NaN) is left blank
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    im = ax.imshow(s, origin="lower", aspect="auto", cmap="viridis", vmin=min(0.0, lo), vmax=max(1.0, hi))
    for layer, head in highlight or []:
        ax.add_patch(plt.Rectangle((head - 0.5, layer - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=1.2))
    ax.set_xlabel("head")
    ax.set_ylabel("layer")
    ax.set_title(title or "switching score s = 1 - cos(pre, post)")
    fig.colorbar(im, ax=ax, label="s")
    return _save(plt, fig, path)


def _save(plt, fig, path: str | Path) -> Path:
    """Lay out, write (folders made) and close a figure."""
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def save_overlay(image, heat: np.ndarray, path: str | Path, *, title: str = "") -> Path:
    """``heat`` (a patch grid, any shape) upsampled onto ``image`` (PIL) as a translucent colour map."""
    plt = _pyplot()
    from PIL import Image

    img = image.convert("RGB")
    heat = np.asarray(heat, dtype=float)
    span = float(heat.max() - heat.min())
    norm = (heat - heat.min()) / span if span > 0 else np.zeros_like(heat)
    big = np.asarray(Image.fromarray((norm * 255).astype(np.uint8)).resize(img.size, Image.BILINEAR), dtype=float) / 255
    fig, ax = plt.subplots(figsize=(img.width / 60 + 1, img.height / 60 + 1))
    ax.imshow(img)
    ax.imshow(big, cmap="jet", alpha=0.45)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def save_patching_plot(data: dict, path: str | Path, *, title: str = "") -> Path:
    """Bars: the patching effect of the switch heads, of the layer-matched random sets and of each head patched alone
    (highest first), with their bootstrap intervals over images; dots: the heads' AtP estimates. 1 = the patch
    brings the second answer's first token back fully."""
    plt = _pyplot()
    labels, effects, lo, hi, colors, atp = [], [], [], [], [], []

    def add(label, effect, ci, color, estimate=np.nan):
        v = np.nan if effect is None else float(effect)
        labels.append(label)
        effects.append(v)
        lo.append(0.0 if not ci or not np.isfinite(v) else max(0.0, v - ci[0]))
        hi.append(0.0 if not ci or not np.isfinite(v) else max(0.0, ci[1] - v))
        colors.append(color)
        atp.append(np.nan if estimate is None else estimate)

    for c in data["conditions"]:
        add(c["condition"], c.get("effect"), c.get("ci"), "tab:red" if c["condition"] == "switch heads" else "tab:gray")
    for r in sorted(data["per_head"], key=lambda r: r.get("rank_exact") or 0):
        add(f"({r['layer']}, {r['head']}) {r.get('from', '')}", r.get("effect"), r.get("ci"), "tab:blue", r.get("atp"))
    x = np.arange(len(labels))
    fig, ax = plt.subplots(figsize=(max(4.0, 0.45 * len(labels) + 2), 3.6))
    ax.bar(x, effects, yerr=[lo, hi], color=colors, capsize=3, label="exact patching (bootstrap interval)")
    if np.isfinite(atp).any():
        ax.plot(x, atp, "o", color="black", markersize=4, label="AtP estimate")
    ax.axhline(0, color="black", linewidth=0.6)
    ax.axhline(1, color="black", linewidth=0.6, linestyle=":")
    ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("share of the switch restored")
    ax.set_title(title or "activation patching")
    ax.legend(fontsize=7)
    return _save(plt, fig, path)
