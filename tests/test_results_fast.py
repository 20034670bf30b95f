"""Gate 9's sanitizer takes a short cut for printable ASCII; every text still comes out as the
full pass (escape sequences, line ends, invisible characters) leaves it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolpool.calls._results import _ANSI, _INVISIBLE, sanitize


def reference(text: str) -> str:
    """The full pass, as it ran before the short cut."""
    text = _ANSI.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _INVISIBLE.sub("", text)


_TRICKY = "\x1b\x9b\r\n\t\x00\x07\x7f\u200b\u202e\u00ad\ufeff\U000e0041\ufe0f[]0;m"
texts = st.one_of(
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x7F), max_size=60),
    st.text(alphabet=st.sampled_from([*_TRICKY, "a", " ", "~"]), max_size=40),
    st.text(max_size=40),
)


@settings(max_examples=3000, deadline=None)
@given(texts)
def test_gate9_the_sanitizer_short_cut_leaves_every_text_as_the_full_pass_does(text: str) -> None:
    assert sanitize(text) == reference(text)


def test_gate9_printable_ascii_comes_back_as_it_is_and_controls_do_not() -> None:
    for text in ("", "hello", '{"a": [1, 2]}', " ~!"):
        assert sanitize(text) == text
    assert sanitize("a\x1b[31mred\x1b[0m\x7f\r\nb") == "ared\nb"
    assert sanitize("tab\tand\x00nul") == "tab\tandnul"
