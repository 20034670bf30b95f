"""Reading the id of a JSON-RPC message that does not parse whole: never raises, always linear."""

from __future__ import annotations

import json
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import json_values
from toolpool._salvage import salvage

request_ids = st.integers() | st.text(max_size=20)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.text(max_size=8).filter(lambda key: key != "id"), json_values, max_size=4), request_ids
)
def test_the_id_of_any_object_is_found_wherever_it_stands(
    members: dict[str, object], request_id: object
) -> None:
    for position in (0, len(members)):
        items = list(members.items())
        items.insert(position, ("id", request_id))
        text = json.dumps(dict(items))
        found = salvage(text)
        assert (found.shape, found.has_id, found.id, found.whole) == ("object", True, request_id, True)
        cut = salvage(text[: len(text) // 2])  # a cut message keeps what was before the cut
        assert cut.id in (None, request_id) and not cut.whole


@settings(max_examples=300, deadline=None)
@given(st.text() | st.binary().map(lambda raw: raw.decode("latin-1")))
def test_any_text_is_read_without_raising(text: str) -> None:
    salvage(text)


def test_ids_that_cannot_be_sent_back_are_present_but_unusable() -> None:
    for raw in ("null", "1.5", "true", "[1]", '{"a":1}', '"\\ud800"', "1" * 5000):
        found = salvage('{"jsonrpc":"2.0","id":' + raw + ',"method":"ping"}')
        assert (found.has_id, found.id, found.whole) == (True, None, True)
    assert salvage('{"\\u0069d":7}').id == 7  # an escaped key is the same key


def test_nesting_100000_deep_is_skipped_in_linear_time() -> None:
    deep = '{"a":' * 100_000 + "1" + "}" * 100_000
    started = time.perf_counter()
    found = salvage('{"params":' + deep + ',"id":"after"}')
    assert found.id == "after" and found.whole and found.keys == {"params", "id"}
    assert salvage("[" + deep + "]").shape == "batch"
    assert time.perf_counter() - started < 10  # about 0.3 s; a quadratic scan would take hours
