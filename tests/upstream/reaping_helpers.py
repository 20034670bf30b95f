"""Helpers for the reaping tests: the escape artist's setsid grandchild, found from the host."""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Iterator
from contextlib import contextmanager


def processes_with(marker: str) -> set[int]:
    """Live processes whose command line holds ``marker``, as the host sees them (sandboxed too)."""
    found = set()
    needle = marker.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if needle in cmdline.read():
                    found.add(int(entry))
        except OSError:
            continue
    return found


def open_fds() -> int:
    """How many file descriptors this process holds."""
    return len(os.listdir("/proc/self/fd"))


@contextmanager
def escape_marker() -> Iterator[str]:
    """A fresh marker for an escapee's command line; whatever still carries it is killed after
    the test, so a failing test leaves nothing behind."""
    marker = f"escapee-{uuid.uuid4().hex}"
    try:
        yield marker
    finally:
        for pid in processes_with(marker):
            os.kill(pid, signal.SIGKILL)
