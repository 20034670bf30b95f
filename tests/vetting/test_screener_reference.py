"""Speed work keeps every reading: the screener's findings over every definition the repository
holds equal the reference written from ``main`` (``screener_reference.py`` says how and when)."""

from __future__ import annotations

import json

from tests.vetting.screener_reference import REFERENCE, compute


def test_every_definition_is_screened_exactly_as_the_reference_screens_it() -> None:
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    now = compute()
    assert now.keys() == reference.keys()
    changed = sorted(key for key in reference if now[key] != reference[key])
    assert not changed, f"{len(changed)} definitions read differently, first: {changed[:10]}"
