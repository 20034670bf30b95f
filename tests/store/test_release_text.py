"""A release's text is assembled from the rows in one pass (issue 16, item 5); it must be the
canonical JSON of the release's content character for character, or every content hash changes."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from toolpool.store import Store
from toolpool.store._codec import canonical, digest
from toolpool.store._release_content import content_of, text_of

from .helpers import imported, read, write

# Names and values from the whole of Unicode (escaped as \uXXXX, astral ones as surrogate pairs),
# quotes and backslashes included; short alphabets make shared keys ("a/b" + "c", "a" + "b/c").
_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
_PART = st.one_of(_TEXT, st.text(alphabet='ab/-_.é"\\', max_size=4))
_OPTIONAL = st.one_of(st.none(), _TEXT)
_APPROVAL = st.one_of(st.just("none"), st.sampled_from(["always", "write"]), _TEXT)
_TOOL_ROW = st.tuples(_PART, _PART, _OPTIONAL, _TEXT, _OPTIONAL, _OPTIONAL, _APPROVAL)
_SPEC_ROW = st.tuples(_PART, _TEXT)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TOOL_ROW, max_size=30), st.lists(_PART, max_size=5), st.lists(_SPEC_ROW, max_size=5))
def test_the_release_text_is_the_canonical_json_of_its_content(
    enabled: list[tuple[str, ...]], disabled: list[str], specs: list[tuple[str, str]]
) -> None:
    assert text_of(enabled, disabled, specs) == canonical(content_of(enabled, disabled, specs))


def test_a_value_that_is_not_text_is_written_by_the_encoder_all_the_same() -> None:
    enabled = [("demo", "lookup", 7, "read", None, True, "none")]
    text = text_of(enabled, [], [])
    assert text == canonical(content_of(enabled, [], []))
    assert json.loads(text)["tools"]["demo/lookup"] == {
        "action": 7,
        "effect": "read",
        "approved_hash": None,
        "resource": True,
    }


def test_a_written_release_stores_the_canonical_text_of_what_it_holds(store: Store) -> None:
    store.tools.record_import("demo", [imported("lookup"), imported("send")], actor="ana")
    store.tools.sync_policy("demo", {"lookup": read("demo.lookup"), "send": write("demo.send")})
    store.tools.enable("demo", "lookup", "ana")
    store.tools.approve_write("demo", "send", "bo", "reports/ü", "ana")
    store.tools.set_server_enabled("other", False, "ana")
    release = store.releases.current_release()
    text = canonical(release.content)
    assert set(release.content["tools"]) == {"demo/lookup", "demo/send"}
    assert release.content["disabled_servers"] == ["other"]
    assert release.content_hash == digest(text)
