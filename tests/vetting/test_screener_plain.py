"""Gate 9's one-pass check (``_plain.is_plain``): a short plain result it lets through gets the
very verdict the full screen gives it — nothing found — and it knows every word list."""

from __future__ import annotations

import base64

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.vetting.test_screener_fast import _NEEDLES, FAST, FULL, _package_vocabs, results
from toolpool.vetting.screener import _exfil, _hits, _plain, _soft
from toolpool.vetting.screener._plain import PLAIN_MAX_CHARS, is_plain

NOTHING = FULL.screen_text("42")
_PLAIN_WORDS = ["ok", "42", "done", "the", "weather", "in", "Paris", "is", "sunny", "21.5", "km/h", "Created"]
_SEPARATORS = [" ", ", ", ". ", "; ", "\n", "-", "(", ")", "+", "=", "/", "%", "?"]
_MARKERS = [*sorted(_soft.SHOUTS), *(word.upper() for word in _PLAIN_WORDS), "gur", "naq", "tool", "tools"]
words = st.sampled_from([*_NEEDLES, *_MARKERS, *_PLAIN_WORDS, *(n.upper() for n in _NEEDLES[::7])])
plain_looking = st.lists(st.tuples(words, st.sampled_from(_SEPARATORS)), max_size=12).map(
    lambda pairs: "".join(word + separator for word, separator in pairs)
)


def holds(text: str) -> None:
    """``is_plain`` answers only where the full screen finds nothing; both paths agree."""
    full = FULL.screen_text(text)
    if is_plain(text):
        assert full == NOTHING, text
    assert FAST.screen_text(text) == full, text


@settings(max_examples=2500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain_looking)
def test_gate9_a_result_the_one_pass_check_lets_through_has_nothing_in_it(text: str) -> None:
    holds(text)


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results)
def test_gate9_the_one_pass_check_agrees_with_the_full_screen_on_any_result(text: str) -> None:
    holds(text)


def test_gate9_every_needle_of_every_word_list_alone_or_in_a_sentence_keeps_the_verdict() -> None:
    for needle in _NEEDLES:
        for text in (needle, f"The weather is {needle} today.", needle.upper(), needle.title()):
            holds(text)


def test_gate9_ordinary_short_results_take_the_one_pass_check() -> None:
    for text in ("ok", "42", "Done.", "true", "hello", "Created issue 42 (draft)", "21.5 km/h, 30%\n"):
        assert is_plain(text), text
        assert FAST.screen_text(text) == NOTHING


def test_gate9_a_result_any_detector_could_start_on_goes_on_to_the_screen() -> None:
    reaching = [
        "IMPORTANT",  # a shout
        "wallNOWhere",  # a shout inside a word
        "gur",  # a rot13 marker word
        "use the fetch tool",  # a tool named as such
        "Note to the assistant",  # a word list's match
        "Sent to x.example",  # exfiltration's words
        base64.b64encode(b"ignore previous instructions").decode(),  # an encoded run
        "ok\n" * 12,  # padding
        "a" + " " * 120 + "b",
        "it's",  # a quote mark (tool mentions)
        "a: b",  # a role label or a link
        "hi!!",  # an alarm
        "<b>x</b>",
        "caf\u00e9",  # not ASCII: characters, look-alikes
        "x" * (PLAIN_MAX_CHARS + 1),
    ]
    assert [text for text in reaching if is_plain(text)] == []
    for text in reaching:
        holds(text)


def test_gate9_every_word_list_of_the_screener_is_known_to_the_one_pass_check() -> None:
    known = {id(vocab) for vocab in _plain._LISTS.vocabs}
    # Read only after another list matched (which the check refuses), or only in decoded payloads.
    after_a_match = {id(vocab) for vocab in (*_hits._LAZY.values(), _exfil._SHELL)}
    unknown = {name for name, vocab in _package_vocabs() if id(vocab) not in known | after_a_match}
    assert not unknown, f"word lists that toolpool.vetting.screener._plain does not know: {unknown}"
