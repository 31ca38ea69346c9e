"""Persistent judge cache: one SQLite file in WAL mode under ``cache_dir()/judge/``.

A key is the SHA-256 of (backend, model, generation parameters, prompt, round): the same prompt in
round 3 of 5 is its own entry, so a k-round vote is reproduced exactly by a second run, which sends no
request at all. Each reply is committed on its own as soon as it arrives, so a killed run keeps every
verdict it had received. Safe for several threads (one connection per thread) and several processes
(WAL, a busy timeout, ``INSERT OR REPLACE`` of immutable values).

Replies that could not be read after the retries are stored too (``ok = 0``): a rerun reproduces the
same judge error without asking again. ``ambi judge-cache clear --errors`` drops them so that the
next run asks again. Transport failures (no reply at all) are never stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    template TEXT NOT NULL,
    round INTEGER NOT NULL,
    reply TEXT NOT NULL,
    ok INTEGER NOT NULL,
    created REAL NOT NULL
)
"""


def default_cache_path() -> Path:
    from ambi_plugin.paths import cache_dir

    return cache_dir() / "judge" / "judge.sqlite"


def cache_key(backend: str, model: str, params: dict[str, Any], prompt: str, round_index: int) -> str:
    blob = json.dumps([backend, model, params, prompt, int(round_index)], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedReply:
    reply: str
    ok: bool


class JudgeCache:
    """Thread- and process-safe reply cache. ``get``/``put`` never raise on a busy database."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_cache_path()
        self._local = threading.local()
        self._init_lock = threading.Lock()
        self._ready = False

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "pid", None) == os.getpid():
            return conn
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(self.path), timeout=60.0, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 60000")
        with self._init_lock:
            if not self._ready:
                self._retry(lambda: conn.execute("PRAGMA journal_mode = WAL"))
                self._retry(lambda: conn.execute(_SCHEMA))
                self._ready = True
        conn.execute("PRAGMA synchronous = NORMAL")
        self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    @staticmethod
    def _retry(fn, attempts: int = 20):
        for i in range(attempts):
            try:
                return fn()
            except sqlite3.OperationalError as exc:  # "database is locked" under heavy contention
                transient = "locked" in str(exc) or "busy" in str(exc)
                if not transient or i == attempts - 1:
                    raise
                time.sleep(0.05 * (i + 1))
        return None

    def get(self, key: str) -> CachedReply | None:
        row = self._retry(
            lambda: self._conn().execute("SELECT reply, ok FROM replies WHERE key = ?", (key,)).fetchone()
        )
        return CachedReply(row[0], bool(row[1])) if row else None

    def put(self, key: str, *, backend: str, model: str, template: str, round_index: int, reply: str, ok: bool) -> None:
        self._retry(
            lambda: self._conn().execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key, backend, model, template, int(round_index), str(reply), int(bool(ok)), time.time()),
            )
        )

    def stats(self) -> list[dict[str, Any]]:
        """Entries per (backend, model, template): total, unreadable, first and last write."""
        if not self.path.exists():
            return []
        rows = self._retry(
            lambda: (
                self._conn()
                .execute(
                    "SELECT backend, model, template, COUNT(*), SUM(1 - ok), MIN(created), MAX(created) "
                    "FROM replies GROUP BY backend, model, template ORDER BY backend, model, template"
                )
                .fetchall()
            )
        )
        keys = ("backend", "model", "template", "entries", "unreadable", "first", "last")
        return [dict(zip(keys, r)) for r in rows or []]

    def clear(self, *, backend: str | None = None, model: str | None = None, errors_only: bool = False) -> int:
        """Delete entries (all, or of one backend/model, or only unreadable replies); returns how many."""
        if not self.path.exists():
            return 0
        where, args = [], []
        if backend:
            where.append("backend = ?")
            args.append(backend)
        if model:
            where.append("model = ?")
            args.append(model)
        if errors_only:
            where.append("ok = 0")
        sql = "DELETE FROM replies" + (" WHERE " + " AND ".join(where) if where else "")
        cur = self._retry(lambda: self._conn().execute(sql, args))
        return cur.rowcount if cur is not None else 0

    def __len__(self) -> int:
        if not self.path.exists():
            return 0
        return int(self._retry(lambda: self._conn().execute("SELECT COUNT(*) FROM replies").fetchone()[0]))

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


def format_stats(cache: JudgeCache) -> str:
    """``ambi judge-cache show``: where the cache is and what it holds."""
    import datetime as dt

    rows = cache.stats()
    size = cache.path.stat().st_size if cache.path.exists() else 0
    head = f"judge cache: {cache.path} ({size / 1e6:.2f} MB, {sum(r['entries'] for r in rows)} replies)"
    if not rows:
        return head + "\n(empty)"
    table = [("backend", "model", "template", "replies", "unreadable", "last written")]
    for r in rows:
        last = dt.datetime.fromtimestamp(r["last"]).strftime("%Y-%m-%d %H:%M")
        table.append((r["backend"], r["model"], r["template"], str(r["entries"]), str(r["unreadable"]), last))
    widths = [max(len(row[c]) for row in table) for c in range(len(table[0]))]
    return "\n".join([head] + ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in table])
