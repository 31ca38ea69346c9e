"""VLMEvalKit prediction files read as the model's answers, exactly, and what their format damaged.

run.py writes a task's predictions in the format ``PRED_FORMAT`` names (``xlsx``, VLMEvalKit's default,
``tsv`` or ``json``; ``csv`` is read too). VLMEvalKit's own ``load`` reads them with pandas defaults,
which turn the answers ``None``, ``N/A``, ``NA``, ``null``, ``nan``, ``NaN``, ``n/a`` and the empty answer
into NaN, and returns a json file as a list of row dicts. Here every cell is read as text with no NA
conversion, from every format, so scoring sees what the file holds.

What the file holds is the model's answer in ``json``, ``tsv`` and ``csv``. An ``xlsx`` file damages some
answers on the way in (xlsxwriter, which VLMEvalKit writes it with), and the damage cannot be undone
afterwards (VLMEvalKit deletes its raw answers once the file is written). Counted as damaged:

* a formula cell: an answer beginning with ``=`` is stored as a formula and read back as its value (0);
* an ``_x00HH_`` escape: control characters (``\\x00``-``\\x08``, ``\\x0b``-``\\x1f``, so also ``\\r``) are
  stored as such escapes and read back as them;
* a cell of exactly 32,767 characters: the longest text a cell keeps; longer answers are cut to it.

A URL longer than Excel's limit is stored as an empty cell, which cannot be told from an empty answer:
not counted. ``json`` (the default of ``ambi vlmeval``) and ``tsv`` damage nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ambi_plugin.core.parsing import response_text

LOSSLESS = "json"  # the format ``ambi vlmeval`` asks run.py for (PRED_FORMAT)
READABLE = ("json", "tsv", "csv", "xlsx")
XLSX_CELL_LIMIT = 32767
_ESCAPE = re.compile(r"_x00[0-9A-Fa-f]{2}_")


class PredictionFileError(ValueError):
    """A prediction file that cannot be read as one (the message names the file and what is wrong)."""


@dataclass
class Predictions:
    """The rows of a prediction file: ``index`` (int) and ``prediction`` (text, or None where the file has
    no value), in file order; ``damaged``: the indices whose answer the file's format is known to have
    damaged, with the reason."""

    path: str
    fmt: str
    index: list[int] = field(default_factory=list)
    prediction: list[str | None] = field(default_factory=list)
    damaged: dict[int, str] = field(default_factory=dict)


def file_format(path: str | Path) -> str:
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt not in READABLE:
        raise PredictionFileError(
            f"{path}: not a VLMEvalKit prediction file we read (.{fmt}); expected one of "
            + ", ".join(f".{f}" for f in READABLE)
        )
    return fmt


def _text(value: Any) -> str | None:
    """A prediction cell as text: None and NaN (a json dump's missing value) -> None, anything else ``str()``."""
    return response_text(value, missing=None, nan_is_missing=True, max_chars=None, binary=(), on_error="raise")


def _rows_from_json(path: str) -> list[dict]:
    """VLMEvalKit's json layouts: a list of row dicts (what ``dump`` writes), ``{"columns", "data"}`` or a dict
    of equally long columns."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except ValueError as exc:
        raise PredictionFileError(f"{path}: not valid JSON ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("columns"), list) and isinstance(data.get("data"), list):
        return [dict(zip(data["columns"], row)) for row in data["data"]]
    if isinstance(data, dict) and data and all(isinstance(v, list) for v in data.values()):
        n = {len(v) for v in data.values()}
        if len(n) == 1:
            keys = list(data)
            return [{k: data[k][i] for k in keys} for i in range(n.pop())]
    if isinstance(data, list) and all(isinstance(r, dict) for r in data):
        return data
    raise PredictionFileError(f"{path}: expected a list of rows (VLMEvalKit's json prediction layout)")


def _rows_from_table(path: str, fmt: str) -> list[dict]:
    import pandas as pd

    opts = {"dtype": str, "keep_default_na": False, "na_filter": False}
    if fmt == "xlsx":
        frame = pd.read_excel(path, **opts)
    else:
        frame = pd.read_csv(path, sep="\t" if fmt == "tsv" else ",", **opts)
    return frame.to_dict("records")


def _xlsx_formula_rows(path: str, column: str) -> set[int]:
    """0-based data rows whose ``column`` cell is a formula (an answer that began with ``=``)."""
    import openpyxl

    wb = openpyxl.load_workbook(path, read_only=True, data_only=False)
    try:
        rows = wb.worksheets[0].iter_rows()
        header = [c.value for c in next(rows, [])]
        if column not in header:
            return set()
        col = header.index(column)
        return {i for i, row in enumerate(rows) if len(row) > col and getattr(row[col], "data_type", None) == "f"}
    finally:
        wb.close()


def read_predictions(path: str | Path) -> Predictions:
    """``index`` and ``prediction`` of every row of a prediction file, as text, no NA conversion."""
    path = str(path)
    fmt = file_format(path)
    rows = _rows_from_json(path) if fmt == "json" else _rows_from_table(path, fmt)
    if rows and ("index" not in rows[0] or "prediction" not in rows[0]):
        raise PredictionFileError(f"{path}: a VLMEvalKit prediction file needs 'index' and 'prediction' columns")
    out = Predictions(path, fmt)
    for n, row in enumerate(rows):
        try:
            index = int(str(row["index"]).strip())
        except (KeyError, ValueError):
            raise PredictionFileError(f"{path}: row {n + 1} has no integer 'index' ({row.get('index')!r})") from None
        out.index.append(index)
        out.prediction.append(_text(row.get("prediction")))
    if fmt == "xlsx":
        out.damaged = xlsx_damage(path, out)
    return out


def xlsx_damage(path: str, preds: Predictions) -> dict[int, str]:
    """{index: reason} of the answers an xlsx file is known to have damaged."""
    damaged: dict[int, str] = {}
    for row in _xlsx_formula_rows(path, "prediction"):
        if row < len(preds.index):
            damaged[preds.index[row]] = "an answer beginning with '=' stored as a formula"
    for index, text in zip(preds.index, preds.prediction):
        if index in damaged or text is None:
            continue
        if _ESCAPE.search(text):
            damaged[index] = "control characters stored as _x00HH_ escapes"
        elif len(text) == XLSX_CELL_LIMIT:
            damaged[index] = f"cut to {XLSX_CELL_LIMIT:,} characters (the longest an xlsx cell keeps)"
    return damaged


__all__ = [
    "LOSSLESS",
    "READABLE",
    "XLSX_CELL_LIMIT",
    "PredictionFileError",
    "Predictions",
    "file_format",
    "read_predictions",
    "xlsx_damage",
]
