"""Normalisation: the text the phrase detectors read, and the tricks it undoes.

``fold`` removes invisible characters, applies NFKC (full-width and "mathematical" letters become
plain ones) and maps look-alike Cyrillic, Greek and Armenian letters to Latin, so that
"ignore" spelt with Cyrillic i, o and e reads as "ignore". ``disguise`` tells whether a text needed
that: words mixing scripts, or letters that only NFKC turns into ASCII.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from itertools import islice

from toolpool.vetting.screener._guard import compiled

__all__ = ["ROT13_WORDS", "Disguise", "disguise", "fold", "humanise", "may_be_rot13", "plain", "rot13"]

# Letters that render like Latin ones (a subset of Unicode's confusables.txt that covers the
# scripts used for spoofing Latin text in practice).
_LOOKALIKES = {
    **dict(
        zip(
            "\u0430\u0435\u0456\u0458\u043e\u0440\u0455\u0441\u0443\u0445\u04bb\u0501\u051b\u051d\u04cf\ua647\u0251\u03bf\u03b1\u03b9\u03c5\u03bd\u03ba\u03c1\u03c4\u03c7",
            "aeijopscyxhdqwliaoaiuvkptx",
            strict=True,
        )
    ),
    **dict(
        zip(
            "\u0410\u0412\u0415\u041d\u0406\u0408\u041a\u041c\u041e\u0420\u0405\u0422\u0425\u0423\u04ae\u0421\u050c\u0500\u051a\u051c\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7",
            "ABEHIJKMOPSTXYYCGDQWABEZHIKMNOPTYX",
            strict=True,
        )
    ),
    **dict(zip("\u0585\u057d\u0570\u0578\u0581\u0566", "ouhngz", strict=True)),
}
_PUNCTUATION = {
    **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032`\u00b4", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'),
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
}
_TABLE = str.maketrans({**_LOOKALIKES, **_PUNCTUATION})
_LOOKALIKE = compiled("[" + "".join(_LOOKALIKES) + "]")
_LATIN = compiled("[A-Za-z]")
_FOREIGN = compiled(r"[^\W\d_A-Za-z]")
_WORDS_CHECKED = 256
_ROT13 = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm",
)
# Format characters and other code points that render as nothing (or as a tofu box).
_INVISIBLE = compiled(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e0fff]"
)
_WORD = compiled(r"[^\W\d_]+")
_CAMEL = compiled(r"(?<=[a-z0-9])(?=[A-Z])")


def fold(text: str) -> str:
    """The text with invisible characters removed, NFKC applied and look-alikes mapped to Latin."""
    if text.isascii():
        return text
    visible = _INVISIBLE.sub("", text)
    return unicodedata.normalize("NFKC", visible).translate(_TABLE)


def plain(text: str) -> str:
    """``fold`` without NFKC and look-alikes: what the text says to a reader who is not fooled."""
    if text.isascii():
        return text
    return _INVISIBLE.sub("", text).translate(_PUNCTUATION_ONLY)


_PUNCTUATION_ONLY = str.maketrans(_PUNCTUATION)
# Full-width letters (not the full-width punctuation of CJK text), mathematical alphanumerics,
# circled and squared letters.
_STYLED = compiled("[\uff21-\uff3a\uff41-\uff5a\u24b6-\u24e9\U0001d400-\U0001d7ff\U0001f130-\U0001f189]")


@dataclass(frozen=True, slots=True)
class Disguise:
    mixed_words: int  # words mixing Latin with look-alike letters of another script
    styled: bool  # letters that only NFKC turns into ASCII (full-width, mathematical)

    def __bool__(self) -> bool:
        return self.mixed_words > 0 or self.styled


def disguise(text: str) -> Disguise:
    if text.isascii():
        return Disguise(0, False)
    styled = _STYLED.search(text) is not None
    if _LOOKALIKE.search(text) is None:
        return Disguise(0, styled)
    mostly_latin = len(_LATIN.findall(text)) > 3 * len(_FOREIGN.findall(text))
    words = {_word_around(text, match.start()) for match in islice(_LOOKALIKE.finditer(text), _WORDS_CHECKED)}
    mixed = 0
    for start, end in words:
        word = text[start:end]
        lookalikes = sum(1 for char in word if char in _LOOKALIKES)
        if any(char.isascii() for char in word) or (mostly_latin and lookalikes == len(word)):
            mixed += 1
    return Disguise(mixed, styled)


def _word_around(text: str, index: int) -> tuple[int, int]:
    """The letters around ``index`` (at most 64 on either side)."""
    start, end = index, index + 1
    while start > 0 and index - start < 64 and text[start - 1].isalpha():
        start -= 1
    while end < len(text) and end - index < 64 and text[end].isalpha():
        end += 1
    return start, end


def humanise(name: str) -> str:
    """A key or identifier as words: ``sidecar_notes`` → ``sidecar notes``."""
    return _CAMEL.sub(" ", name).replace("_", " ").replace("-", " ")


def rot13(text: str) -> str:
    return text.translate(_ROT13)


# Common English words as they read after rot13 ("the", "and", "you", "your", "with", "all", "for",
# "this", "that", "to", "of"): a text that contains several of them may be rot13-encoded English.
_ROT13_WORDS = frozenset({"gur", "naq", "lbh", "lbhe", "jvgu", "nyy", "sbe", "guvf", "gung", "gb", "bs"})


ROT13_WORDS = _ROT13_WORDS  # what ``may_be_rot13`` looks for (``_plain`` refuses texts with one)


def may_be_rot13(word_keys: frozenset[str]) -> bool:
    """Whether a text with these word keys (``Doc.word_keys``) is worth reading after rot13."""
    return len(_ROT13_WORDS & word_keys) >= 2
