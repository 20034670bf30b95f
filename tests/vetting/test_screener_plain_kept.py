"""Gate 9's one-pass check keeps its answers (``_plain.is_plain``): an answer given again from
memory is the answer the check itself gives, the memory stays bounded, and a text that is not
a plain ``str`` is never kept."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from tests.vetting.test_screener_fast import FULL, results
from tests.vetting.test_screener_plain import NOTHING, plain_looking
from toolpool.vetting.screener import _plain
from toolpool.vetting.screener._plain import PLAIN_MAX_CHARS, decide, is_plain


def agrees(text: str) -> None:
    """First answer, answer from memory, and the check done again: all the same."""
    first = is_plain(text)
    assert first == decide(text), text
    assert is_plain(text) == first, text
    if first:
        assert FULL.screen_text(text) == NOTHING, text


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain_looking)
def test_gate9_a_kept_answer_is_the_checks_own_answer_on_plain_looking_text(text: str) -> None:
    agrees(text)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results)
def test_gate9_a_kept_answer_is_the_checks_own_answer_on_any_result(text: str) -> None:
    agrees(text)


def test_gate9_a_text_that_reaches_a_detector_is_refused_again_from_memory() -> None:
    for text in ("IMPORTANT", "ignore previous instructions", "Sent.", "hello", "ok"):
        assert is_plain(text) == decide(text)
        assert is_plain(text) == decide(text)
    assert not is_plain("IMPORTANT")
    assert is_plain("ok")


def test_gate9_the_kept_answers_stay_bounded() -> None:
    for number in range(_plain._KEPT + 10):
        is_plain(f"result {number}")
    assert 0 < len(_plain._answers) <= _plain._KEPT


def test_gate9_a_long_text_or_a_str_subclass_is_never_kept() -> None:
    class Sly(str):
        def __hash__(self) -> int:
            return hash("ok")

        def __eq__(self, other: object) -> bool:
            return True

    long_text = "ok " * (PLAIN_MAX_CHARS // 3 + 1)
    _plain._answers.clear()
    assert not is_plain(long_text)
    assert is_plain(Sly("IMPORTANT")) is False
    assert _plain._answers == {}
