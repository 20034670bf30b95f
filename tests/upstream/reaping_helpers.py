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


def open_fds() -> dict[int, str]:
    """The file descriptors this process holds, each with what it points at."""
    held: dict[int, str] = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            held[int(name)] = os.readlink(f"/proc/self/fd/{name}")
        except OSError:  # closed meanwhile (the listing's own descriptor, another thread's file)
            continue
    return held


def opened_since(before: dict[int, str]) -> dict[int, str]:
    """The descriptors held now that were not held (or pointed elsewhere) at ``before``: what a test
    leaked. One that something else closed meanwhile (an earlier test's file, collected) is no leak."""
    return {fd: target for fd, target in open_fds().items() if before.get(fd) != target}


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
