"""Persistent judge cache: one SQLite file in WAL mode under ``cache_dir()/judge/``.

A key is the SHA-256 of (backend, model, generation parameters, prompt, round): the same prompt in
round 3 of 5 is its own entry, so a k-round vote is reproduced exactly by a second run, which sends no
request at all. Each reply is committed on its own as soon as it arrives, so a killed run keeps every
verdict it had received. Safe for several threads (one connection per thread) and several processes
(WAL, a busy timeout, ``INSERT OR REPLACE`` of immutable values).

Replies that could not be read after the retries are stored too (``ok = 0``): a rerun reproduces the
same judge error without asking again. ``ambi judge-cache clear --errors`` drops them so that the
next run asks again. Transport failures (no reply at all) are never stored.

A cache file that is not a readable SQLite database (a torn copy, a disk fault, another file at its path) never
ends a run: the file is named on stderr, moved aside beside itself as ``judge.sqlite.corrupt-<time>`` (kept, with
its ``-wal``/``-shm`` files, for whoever wants to look at it), and the run goes on with a new, empty cache.
``ambi judge-cache show`` / ``clear`` do the same, so they always work.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
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
        self._generation = 0  # bumped when a corrupt file is moved aside: every thread then reconnects
        self.moved_aside: list[Path] = []

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if (
            conn is not None
            and getattr(self._local, "pid", None) == os.getpid()
            and getattr(self._local, "generation", None) == self._generation
        ):
            return conn
        if conn is not None and getattr(self._local, "pid", None) == os.getpid():
            conn.close()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for attempt in (0, 1):
            conn = sqlite3.connect(str(self.path), timeout=60.0, isolation_level=None, check_same_thread=False)
            inode = _inode(self.path)
            try:
                self._prepare(conn)
                break
            except sqlite3.DatabaseError as exc:
                conn.close()
                if attempt or _transient(exc):
                    raise
                self._move_aside(exc, inode)
        self._local.conn, self._local.pid, self._local.generation = conn, os.getpid(), self._generation
        self._local.inode = inode
        return conn

    def _prepare(self, conn: sqlite3.Connection) -> None:
        conn.execute("PRAGMA busy_timeout = 60000")
        with self._init_lock:
            if not self._ready:
                self._retry(lambda: conn.execute("PRAGMA journal_mode = WAL"))
                self._retry(lambda: conn.execute(_SCHEMA))
                self._retry(lambda: conn.execute("SELECT COUNT(*) FROM replies").fetchone())  # a torn file fails
                self._ready = True
        conn.execute("PRAGMA synchronous = NORMAL")

    def _move_aside(self, exc: BaseException, inode: int | None) -> None:
        """Move a corrupt cache file (and its -wal/-shm) aside, keep it, say so; the next connection is new."""
        with self._init_lock:
            if inode is not None and _inode(self.path) == inode:  # not yet moved by another thread or process
                stamp = time.strftime("%Y%m%d-%H%M%S")
                aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{os.getpid()}")
                for suffix in ("", "-wal", "-shm"):
                    src = Path(str(self.path) + suffix)
                    try:
                        src.rename(str(aside) + suffix)
                    except FileNotFoundError:
                        pass
                self.moved_aside.append(aside)
                print(
                    f"ambi-plugin: judge cache {self.path} is not a readable SQLite database ({exc}); moved it to "
                    f"{aside} and going on with a new, empty cache (replies are asked again)",
                    file=sys.stderr,
                )
            self._ready = False
            self._generation += 1

    def _run(self, fn):
        """``fn(connection)`` with the busy retries; a corrupt file met mid-run is moved aside, then one retry."""
        try:
            return self._retry(lambda: fn(self._conn()))
        except sqlite3.DatabaseError as exc:
            if _transient(exc):
                raise
            self._move_aside(exc, getattr(self._local, "inode", None))
            return self._retry(lambda: fn(self._conn()))

    @staticmethod
    def _retry(fn, attempts: int = 20):
        for i in range(attempts):
            try:
                return fn()
            except sqlite3.OperationalError as exc:  # "database is locked" under heavy contention
                if not _transient(exc) or i == attempts - 1:
                    raise
                time.sleep(0.05 * (i + 1))
        return None

    def get(self, key: str) -> CachedReply | None:
        row = self._run(lambda conn: conn.execute("SELECT reply, ok FROM replies WHERE key = ?", (key,)).fetchone())
        return CachedReply(row[0], bool(row[1])) if row else None

    def put(self, key: str, *, backend: str, model: str, template: str, round_index: int, reply: str, ok: bool) -> None:
        self._run(
            lambda conn: conn.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key, backend, model, template, int(round_index), str(reply), int(bool(ok)), time.time()),
            )
        )

    def stats(self) -> list[dict[str, Any]]:
        """Entries per (backend, model, template): total, unreadable, first and last write."""
        if not self.path.exists():
            return []
        rows = self._run(
            lambda conn: conn.execute(
                "SELECT backend, model, template, COUNT(*), SUM(1 - ok), MIN(created), MAX(created) "
                "FROM replies GROUP BY backend, model, template ORDER BY backend, model, template"
            ).fetchall()
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
        cur = self._run(lambda conn: conn.execute(sql, args))
        return cur.rowcount if cur is not None else 0

    def __len__(self) -> int:
        if not self.path.exists():
            return 0
        return int(self._run(lambda conn: conn.execute("SELECT COUNT(*) FROM replies").fetchone()[0]))

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


def _transient(exc: BaseException) -> bool:
    """A busy / locked database (another writer): waited for, never a corrupt file."""
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None


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
