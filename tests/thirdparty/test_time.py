"""The reference time server (its own virtualenv) through the Pool, under examples/time.toml.

convert_time uses today's date in the source zone, so only the time of day, the offsets and
the difference are fixed; zones without daylight saving keep them fixed all year (NOTES.md).
"""

from __future__ import annotations

import json

import anyio
import pytest

from tests.thirdparty.conftest import Examples
from toolpool import Pool, Ticket

pytestmark = [pytest.mark.anyio, pytest.mark.thirdparty]

TIMEOUT = 30
TICKET = Ticket.allow("time.*")


async def test_convert_time_between_fixed_zones_gives_the_expected_times_of_day(examples: Examples) -> None:
    async with Pool(examples.load("time")) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("time")
            snapshot = pool.snapshot()
            tokyo = await pool.call(
                snapshot,
                "mcp__time__convert_time",
                {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
                ticket=TICKET,
            )
            kolkata = await pool.call(
                snapshot,
                "mcp__time__convert_time",
                {"source_timezone": "Asia/Tokyo", "time": "08:30", "target_timezone": "Asia/Kolkata"},
                ticket=TICKET,
            )

    assert set(snapshot.names) == {"mcp__time__convert_time", "mcp__time__get_current_time"}
    assert tokyo.code == "ok", tokyo
    assert tokyo.structured is not None and json.loads(tokyo.text) == tokyo.structured
    source, target = tokyo.structured["source"], tokyo.structured["target"]
    assert source["datetime"].endswith("T12:00:00+00:00")
    assert target["datetime"].endswith("T21:00:00+09:00")
    assert source["datetime"][:10] == target["datetime"][:10]
    assert (source["timezone"], target["timezone"]) == ("UTC", "Asia/Tokyo")
    assert (source["is_dst"], target["is_dst"]) == (False, False)
    assert tokyo.structured["time_difference"] == "+9.0h"

    assert kolkata.code == "ok", kolkata
    assert kolkata.structured is not None
    assert kolkata.structured["source"]["datetime"].endswith("T08:30:00+09:00")
    assert kolkata.structured["target"]["datetime"].endswith("T05:00:00+05:30")
    assert kolkata.structured["time_difference"] == "-3.5h"
