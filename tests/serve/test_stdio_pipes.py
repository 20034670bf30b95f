"""The stdio front's byte plumbing: stdin and stdout moved on the event loop without blocking
it, whatever they are (a pipe, a regular file, /dev/null), and every byte kept."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from toolpool.serve.gateway._stdio import _Lines, _Pipe

pytestmark = pytest.mark.anyio

_BOUND_S = 30.0


async def _all_lines(fd: int) -> list[str]:
    return [line async for line in _Lines(_Pipe(fd))]


async def test_lines_of_a_regular_file_are_read_whole_with_the_last_unterminated_one(tmp_path: Path) -> None:
    source = tmp_path / "requests.jsonl"
    source.write_bytes("first\nsecond é\nlast".encode())
    fd = os.open(source, os.O_RDONLY)
    try:
        with anyio.fail_after(_BOUND_S):
            lines = await _all_lines(fd)
    finally:
        os.close(fd)
    assert lines == ["first\n", "second é\n", "last"]


async def test_dev_null_is_an_empty_stdin_and_a_bottomless_stdout() -> None:
    fd = os.open(os.devnull, os.O_RDWR)
    try:
        with anyio.fail_after(_BOUND_S):
            assert await _all_lines(fd) == []
            await _Pipe(fd).write(b"x" * 100_000)
    finally:
        os.close(fd)


async def test_a_message_larger_than_the_pipe_reaches_the_reader_whole_and_in_order() -> None:
    message = "".join(f"{index:07d}é" for index in range(40_000)).encode() + b"\n"  # ~360 KB
    assert len(message) > 4 * 65_536
    read_end, write_end = os.pipe()
    received: list[str] = []
    try:
        with anyio.fail_after(_BOUND_S):
            async with anyio.create_task_group() as tasks:

                async def read_all() -> None:
                    received.extend(await _all_lines(read_end))

                tasks.start_soon(read_all)
                await _Pipe(write_end).write(message)
                await _Pipe(write_end).write(b"after\n")
                os.close(write_end)
                write_end = -1
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
    assert received == [message.decode(), "after\n"]
