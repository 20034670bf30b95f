"""Call statistics per (alias, tool), computed the same way on every database."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from itertools import groupby

from sqlalchemy import Connection, select

from toolpool.store._tables import call_records
from toolpool.store._values import CallStats

__all__ = ["call_stats", "percentile"]


def percentile(ordered: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of sorted values, interpolated between the closest ranks."""
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def call_stats(connection: Connection, since: datetime | None) -> list[CallStats]:
    c = call_records.c
    query = select(c.alias, c.tool, c.code, c.duration_ms).order_by(c.alias, c.tool, c.duration_ms)
    if since is not None:
        query = query.where(c.at >= since)
    stats = []
    for (alias, tool), group in groupby(connection.execute(query), key=lambda row: (row.alias, row.tool)):
        rows = list(group)
        durations = [row.duration_ms for row in rows]
        stats.append(
            CallStats(
                alias=alias,
                tool=tool,
                calls=len(rows),
                codes=dict(sorted(Counter(row.code for row in rows).items())),
                p50_ms=percentile(durations, 50),
                p95_ms=percentile(durations, 95),
            )
        )
    return stats
