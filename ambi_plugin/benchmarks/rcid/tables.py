"""RCID's Table 1 as reference rows, to show beside a run (test set; "based on pixel value" / "based on human
perception" prompts). Each cell is (no-illusion rate, human-like rate) in percent, as printed."""

from __future__ import annotations

TABLE1: dict[str, dict[str, tuple[float, float]]] = {
    # model: {"<type>_<family>": (no_illusion, human_like)}
    "LLaVA-1.5 (7B)": {
        "contrast_pixel": (35.4, 41.2),
        "contrast_human": (32.4, 37.4),
        "filter_pixel": (20.0, 67.8),
        "filter_human": (19.8, 64.6),
        "stripe_pixel": (30.3, 35.2),
        "stripe_human": (28.3, 40.1),
    },
    "Mixed Training (Ours)": {
        "contrast_pixel": (83.9, 6.9),
        "contrast_human": (8.1, 79.0),
        "filter_pixel": (68.0, 24.3),
        "filter_human": (12.1, 82.3),
        "stripe_pixel": (84.5, 9.8),
        "stripe_human": (15.4, 76.7),
    },
}


def na_rate(no_illusion: float, human_like: float) -> float:
    """The N/A share a Table 1 cell implies (the three rates sum to 100)."""
    return round(100.0 - no_illusion - human_like, 1)


def format_table1() -> str:
    cols = [f"{t}_{f}" for t in ("contrast", "filter", "stripe") for f in ("pixel", "human")]
    lines = ["model | " + " | ".join(cols), "---|" + "---|" * len(cols)]
    for model, row in TABLE1.items():
        lines.append(model + " | " + " | ".join(f"{row[c][0]:.1f} ({row[c][1]:.1f})" for c in cols))
    return "\n".join(lines)
