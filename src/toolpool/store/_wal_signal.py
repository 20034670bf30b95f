"""SQLite's change signal for gate 3: the header of the WAL index, read with one ``pread``.

In WAL mode every commit that changes the database appends frames to the log and then
rewrites the header of the WAL index (the ``-shm`` file every connection maps): its frame
count, running checksums, salts and its own checksum. A commit of any connection of any
process therefore changes those 48 bytes, and a header that reads the same as before means
that nothing was committed in between (https://www.sqlite.org/walformat.html, "The WAL-Index
Header"). It is what ``PRAGMA data_version`` is computed from, read for about a tenth of that
statement's cost through Python's sqlite3 (``bench/gate3_store.py``).

Rules kept here, each a reason to answer "unknown" (the caller then queries, as without it):

- the header is written twice, the second copy first; a read whose copies differ, or whose
  ``isInit`` is unset, caught a writer (or a recovery) in the middle: unknown;
- no ``-shm`` file (an in-memory database, another journal mode): unknown, always;
- the file can only be truncated and rebuilt when no connection holds the database open, so
  answers are trusted only across reads made while the gate's own connection stayed the same
  (``Gate.connects``), which holds it open.

``pread`` rather than ``mmap``: a mapping of a file that another process truncates ends this
process with SIGBUS, a read just comes back short.
"""

from __future__ import annotations

import contextlib
import os
import threading

__all__ = ["WalSignal"]

_HEADER = 48  # bytes of one copy of the WAL-index header
_IS_INIT = 12  # offset of ``isInit`` in a copy


class WalSignal:
    """The WAL-index header of one SQLite database file, or None when it cannot vouch.

    ``rearm`` (re)opens the file: call it only while a connection of the caller's holds the
    database open, so that the file opened is the one that connection maps."""

    def __init__(self, database: str | None) -> None:
        self._path = None if not database or database.startswith("file:") else f"{database}-shm"
        self._descriptor: int | None = None
        self._lock = threading.Lock()
        self._closed = False

    def header(self) -> bytes | None:
        """The current header (equal bytes: nothing committed between two reads), or None."""
        descriptor = self._descriptor
        if descriptor is None:
            return None
        try:
            both = os.pread(descriptor, 2 * _HEADER, 0)
        except OSError:
            return None
        first = both[:_HEADER]
        if len(both) < 2 * _HEADER or first != both[_HEADER:] or not first[_IS_INIT]:
            return None
        return first

    def rearm(self) -> None:
        """Open the file anew (the one a connection opened since maps); none: stay unknown."""
        descriptor = None
        if self._path is not None:
            with contextlib.suppress(OSError):  # no WAL index: an in-memory database, say
                descriptor = os.open(self._path, os.O_RDONLY | os.O_CLOEXEC)
        with self._lock:
            old, self._descriptor = self._descriptor, (None if self._closed else descriptor)
        for stale in (old, descriptor):
            if stale is not None and stale != self._descriptor:
                with contextlib.suppress(OSError):
                    os.close(stale)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            descriptor, self._descriptor = self._descriptor, None
        if descriptor is not None:
            with contextlib.suppress(OSError):
                os.close(descriptor)
