"""Gate 9's one-pass check: a short, plain result that no detector can find anything in.

Most results are a word, a number or a short sentence ("ok", "42", "Sent."). The fast path
(``_fast.quiet_findings``) already proves that no word list matches them, but it builds a
document and asks every detector that runs regardless (markup, tool mentions, soft signals):
tens of microseconds on a call path that costs a few hundred. ``is_plain`` decides the same
thing for short plain text in one compiled character-class match and one set lookup, by
refusing every text in which any detector could start:

- only printable ASCII letters, digits, spaces, line breaks and ``, . ; ? ( ) - + = / %``: no
  hidden, look-alike or control character (characters, disguise, rot13's second reading needs
  words, see below), no markup (``< [ { #``), no role label or link (``:``), no address
  (``@``), no quote mark (tool mentions), no alarm (``!``);
- no match of any word list the fast path knows (the triggers, the soft lists, the role
  labels), found as the detectors find them (``Triggers.match``, ``Doc.finditer``), no rot13
  marker word, no shouted word, no word "tool";
- nothing an encoded payload could be made of (``_decode``'s candidate run), and no padding.

Whatever it refuses goes on to the fast path and the full screen as before: ``is_plain`` only
ever answers "nothing to find". Tests draw texts from every needle of every word list and
compare the verdicts, and fail when a word list is added that this module does not know.

The answer depends on the text alone (every list above is fixed at import), so it is kept for
the texts seen last: a plain result that comes back again ("ok", "done", "42") costs one
dict lookup instead of the check, which after an upstream round trip (cold caches) costs
60-90 µs of a call's CPU even on "hello" (bench/RESULTS.md §9b). Bounded: at most
``_KEPT`` texts of at most ``PLAIN_MAX_CHARS`` characters each, forgotten all at once when full.
"""

from __future__ import annotations

import re

from toolpool.vetting.screener import _markup, _soft, _text
from toolpool.vetting.screener._decode import CANDIDATE
from toolpool.vetting.screener._doc import Doc, Part
from toolpool.vetting.screener._fast import PEER_TRIGGERS, TOOL_TRIGGERS, Triggers
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._vocab import Vocab, word_keys

__all__ = ["PLAIN_MAX_CHARS", "decide", "is_plain"]

# Longer results nearly always hold a word some list knows; the check would be work done twice.
PLAIN_MAX_CHARS = 200
_PLAIN = compiled(r"[A-Za-z0-9 ,.;?()+=/%\n-]*")
# ``_soft``'s padding: twelve line breaks, or 120 spaces in a row.
_NEWLINES = 12
_SPACES = " " * 120


def _vocabs() -> tuple[Vocab, ...]:
    # Every list the fast path consults, and those whose detectors it runs as they are.
    lists = (*TOOL_TRIGGERS.vocabs, *PEER_TRIGGERS.vocabs, *_soft.VOCABS, *_markup.VOCABS)
    return tuple({id(vocab): vocab for vocab in lists}.values())


# Every list the fast path consults or whose detector it runs as it is, indexed by needle.
_LISTS = Triggers(_vocabs())
# Words that make a detector look further without a word list: rot13's markers, shouts, "tool".
_WORDS = frozenset(_text.ROT13_WORDS | {word.lower() for word in _soft.SHOUTS} | {"tool"})
_CAPITALS = compiled(r"[A-Z]{3,}")
# The lists' substring needles that text of ``_PLAIN``'s characters can hold (the others hold
# ``_ @ : '``), in one pattern.
_SUBSTRINGS = compiled(
    "|".join(
        re.escape(needle)
        for needle in sorted({n for vocab in _LISTS.vocabs for n in vocab.substrings}, key=len, reverse=True)
        if _PLAIN.fullmatch(needle)
    )
)


# How many answers are kept (about 1 MB at most); more distinct short results start over.
_KEPT = 4096
_answers: dict[str, bool] = {}


def is_plain(text: str) -> bool:
    """Whether ``text`` is a short plain result in which no detector can find anything."""
    if len(text) > PLAIN_MAX_CHARS:
        return False
    if type(text) is not str:  # a subclass may hash or compare as it likes: never kept
        return decide(text)
    answer = _answers.get(text)
    if answer is None:
        answer = decide(text)
        if len(_answers) >= _KEPT:
            _answers.clear()
        _answers[text] = answer
    return answer


def decide(text: str) -> bool:
    """``is_plain`` without the answers kept: the check itself, done again each time."""
    if len(text) > PLAIN_MAX_CHARS or _PLAIN.fullmatch(text) is None or text.count("\n") >= _NEWLINES:
        return False
    if _SPACES in text or CANDIDATE.search(text) is not None:
        return False
    if _CAPITALS.search(text) is not None and any(
        run.group() in _soft.SHOUTS for run in _CAPITALS.finditer(text)
    ):
        return False
    lower = text.lower()
    keys = word_keys(lower)
    if not keys.isdisjoint(_WORDS):
        return False
    if keys.isdisjoint(_LISTS.keys) and _SUBSTRINGS.search(lower) is None:
        return True  # no list is even a candidate (``Triggers.candidates``): no document needed
    doc = Doc(text, (Part("result", text),), [0], lower=lower, keys=keys)  # one part: no sentences
    return not _LISTS.match(doc)
