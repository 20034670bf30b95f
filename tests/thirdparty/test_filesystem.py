"""The reference filesystem server through the Pool, sharing only a folder the test made.

Derived from examples/filesystem.toml with its directory argument "." replaced by the
test's own folder (resolved: a symlinked folder would be reported twice, NOTES.md).
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.thirdparty.conftest import Examples
from toolpool import Config, Pool, Ticket

pytestmark = [pytest.mark.anyio, pytest.mark.thirdparty]

TIMEOUT = 30
TICKET = Ticket.allow("filesystem.*")


def _share(tmp_path: Path, examples: Examples) -> tuple[Path, Config]:
    shared = (tmp_path / "shared").resolve()
    shared.mkdir()
    (shared / "hello.txt").write_text("hello\nworld\n", encoding="utf-8")
    return shared, examples.derive("filesystem", replace_args={".": str(shared)})


async def test_read_text_file_and_list_directory_answer_exactly_inside_the_shared_folder(
    tmp_path: Path, examples: Examples
) -> None:
    shared, config = _share(tmp_path, examples)
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("filesystem")
            snapshot = pool.snapshot()
            read = await pool.call(
                snapshot, "mcp__filesystem__read_text_file", {"path": f"{shared}/hello.txt"}, ticket=TICKET
            )
            listing = await pool.call(
                snapshot, "mcp__filesystem__list_directory", {"path": str(shared)}, ticket=TICKET
            )

    assert (read.code, read.text) == ("ok", "hello\nworld\n")
    assert read.structured == {"content": "hello\nworld\n"}
    assert (listing.code, listing.text) == ("ok", "[FILE] hello.txt")
    assert "mcp__filesystem__write_file" not in snapshot
    assert "mcp__filesystem__move_file" not in snapshot


async def test_a_read_outside_the_shared_folder_is_a_remote_error_without_the_servers_message(
    tmp_path: Path, examples: Examples
) -> None:
    shared, config = _share(tmp_path, examples)
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("filesystem")
            snapshot = pool.snapshot()
            outside = await pool.call(
                snapshot, "mcp__filesystem__read_text_file", {"path": "/etc/passwd"}, ticket=TICKET
            )
            after = await pool.call(
                snapshot, "mcp__filesystem__read_text_file", {"path": "hello.txt"}, ticket=TICKET
            )

    server_message = f"Access denied - path outside allowed directories: /etc/passwd not in {shared}"
    assert (outside.ok, outside.code) == (False, "mcp_remote_error")
    assert "Access denied" not in outside.text
    assert "/etc/passwd" not in outside.text and str(shared) not in outside.text
    assert outside.structured is None
    assert outside.audit_detail == server_message
    assert (after.code, after.text) == ("ok", "hello\nworld\n")  # the connection was kept


async def test_r5_its_descriptions_longer_than_400_characters_are_cut_and_marked(
    tmp_path: Path, examples: Examples
) -> None:
    _, config = _share(tmp_path, examples)
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("filesystem")
        snapshot = pool.snapshot()

    descriptions = {tool.remote_name: tool.description for tool in snapshot}
    cut = {name for name, text in descriptions.items() if len(text) == 400}
    assert cut == {"read_text_file", "search_files"}  # 457 and 424 characters as published
    assert all(descriptions[name].endswith("\u2026") for name in cut)
    assert max(len(text) for text in descriptions.values()) == 400
