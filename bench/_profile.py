"""``--profile``: run ``pool.call`` under cProfile and show where toolpool's own time goes.

cProfile counts each resumption of a coroutine as a call and inflates pure-Python code
several times over, so read the figures as a ranking, not as timings; section 1b of the bench
gives unprofiled timings of the same pieces.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import tempfile
from pathlib import Path

from _calls import ALIAS, TEXT
from _configs import alpha_server, local_name, write_config
from toolpool import Pool, Ticket

__all__ = ["profile_pool_calls"]

_SHOWN = 25


async def profile_pool_calls(era: str, calls: int) -> str:
    with tempfile.TemporaryDirectory(prefix="toolpool-profile-") as scratch:
        config = write_config(Path(scratch), alpha_server(ALIAS, era))
        async with Pool(config) as pool:
            await pool.connect(ALIAS)
            snapshot, ticket, name = pool.snapshot(), Ticket.allow("*"), local_name(ALIAS, "echo")
            for _ in range(max(50, calls // 10)):
                await pool.call(snapshot, name, {"text": TEXT}, ticket=ticket)
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(calls):
                await pool.call(snapshot, name, {"text": TEXT}, ticket=ticket)
            profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    out.write(
        f"pool.call x {calls} ({era}) under cProfile\n\n== toolpool's own functions, by cumulative time ==\n"
    )
    stats.sort_stats("cumulative").print_stats("toolpool", _SHOWN)
    out.write("== everything, by own time ==\n")
    stats.sort_stats("tottime").print_stats(_SHOWN)
    return out.getvalue()
