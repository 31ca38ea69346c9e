"""The HTML report (``ambi report --format html``): one page, the overview first, every logged item one click away.

:func:`write_html` writes ``report.html`` and the item images under ``items/`` (see :mod:`.page` and :mod:`.items`).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["write_html"]


def write_html(report, out_dir: str | Path, *, title: str, plots: dict[str, list[str]], extra_markdown: str = "",
               items: bool = True, progress: bool = False) -> Path:  # fmt: skip
    """Write ``out_dir/report.html``; ``plots``: table key -> PNG paths relative to ``out_dir``; ``extra_markdown``:
    the Markdown report's sections shown as they are; ``items``: False leaves the item browser empty."""
    from ambi_plugin.reports.web.items import collect_items
    from ambi_plugin.reports.web.page import page

    out = Path(out_dir)
    tasks, pools = collect_items(report.runs, out, progress=progress) if items else ([], {})
    if not items:
        pools["empty"] = "The item browser was left out of this report (ambi report --no-items)."
    text = page(report, title=title, plots={k: [str(out / p) for p in v] for k, v in plots.items()},
                extra_markdown=extra_markdown, items=tasks, pools=pools)  # fmt: skip
    path = out / "report.html"
    path.write_text(text, encoding="utf-8")
    return path
