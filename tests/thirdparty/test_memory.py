"""The reference memory server through the Pool, with its graph file in the test's folder.

Derived from examples/memory.toml with MEMORY_FILE_PATH (an absolute path) replaced.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tests.thirdparty.conftest import Examples
from toolpool import Pool, Ticket

pytestmark = [pytest.mark.anyio, pytest.mark.thirdparty]

TIMEOUT = 30
TICKET = Ticket.allow("memory.*")
EMPTY_GRAPH: dict[str, list[object]] = {"entities": [], "relations": []}


async def test_read_graph_on_a_fresh_graph_is_the_empty_graph_and_creates_no_file(
    tmp_path: Path, examples: Examples
) -> None:
    graph = tmp_path / "memory.jsonl"
    config = examples.derive("memory", env={"MEMORY_FILE_PATH": str(graph)})
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("memory")
            snapshot = pool.snapshot()
            envelope = await pool.call(snapshot, "mcp__memory__read_graph", {}, ticket=TICKET)

    assert set(snapshot.names) == {
        "mcp__memory__read_graph",
        "mcp__memory__search_nodes",
        "mcp__memory__open_nodes",
    }
    assert envelope.code == "ok", envelope
    assert json.loads(envelope.text) == EMPTY_GRAPH
    assert envelope.structured == EMPTY_GRAPH
    assert not graph.exists()


async def test_a_disabled_write_tool_is_not_in_the_snapshot_so_calling_it_is_unknown_tool(
    tmp_path: Path, examples: Examples
) -> None:
    graph = tmp_path / "memory.jsonl"
    config = examples.derive("memory", env={"MEMORY_FILE_PATH": str(graph)})
    entities = {"entities": [{"name": "alice", "entityType": "person", "observations": ["likes tea"]}]}
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("memory")
            snapshot = pool.snapshot()
            envelope = await pool.call(snapshot, "mcp__memory__create_entities", entities, ticket=TICKET)
            graph_after = await pool.call(snapshot, "mcp__memory__read_graph", {}, ticket=TICKET)

    assert (envelope.ok, envelope.code) == (False, "unknown_tool")
    assert graph_after.structured == EMPTY_GRAPH
    assert not graph.exists()
