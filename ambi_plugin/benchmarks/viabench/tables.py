"""VIA-Bench's paper tables (Table 3.2, Table 4.1) as layouts for the reports (:mod:`ambi_plugin.benchmarks.layout`).

Every category comes from the all-category task (``acc_match_<cat>``) or from its own task (``acc_match``)."""

from __future__ import annotations

from ambi_plugin.benchmarks.layout import Column, Layout, Variant
from ambi_plugin.benchmarks.viabench.spec import CATEGORIES

VARIANTS = (
    Variant("normal", ("ambi_viabench_val", "ambi_viabench"), {"s": ""}),
    Variant("zero-shot CoT", ("ambi_viabench_val_zs_cot", "ambi_viabench_zs_cot"), {"s": "_zs_cot"}),
    Variant("manual CoT", ("ambi_viabench_val_manual_cot", "ambi_viabench_manual_cot"), {"s": "_manual_cot"}),
    Variant("blind", ("ambi_viabench_val_blind", "ambi_viabench_blind"), {"s": "_blind"}),
)
COLUMNS = tuple(Column(f"{c.upper()} {p.title()}", ((None, f"acc_{p}_{c}"), (f"ambi_viabench_{c}{{s}}", f"acc_{p}")))
                for c in CATEGORIES for p in ("match", "judge"))  # fmt: skip
LAYOUTS = (
    Layout("via_main", "viabench", "VIA-Bench Table 3.2: accuracy (%), Match and Judge per category", COLUMNS,
           VARIANTS, avg=True, rank=True,
           note="Avg. = mean of the 12 Match and Judge cells; Rank by Avg. within the rows of this table (PROTOCOL)."),
    Layout("via_table_4_1", "viabench", "VIA-Bench Table 4.1: normal versus zero-shot and manual CoT (%)",
           COLUMNS, VARIANTS[:3], avg=True,
           note="Avg. = mean of the 12 Match and Judge cells; each CoT row is compared with the paper's CoT row."),
)  # fmt: skip

__all__ = ["COLUMNS", "LAYOUTS", "VARIANTS"]
