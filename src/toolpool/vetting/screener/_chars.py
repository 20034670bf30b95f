"""Characters that hide text from a person or take over a terminal.

Tag characters (U+E0000 to U+E007F) spell invisible ASCII; zero-width and bidi controls hide
or reorder text; variation selectors can carry bytes; ESC starts terminal escape sequences.
Some of them are normal in context, and only there are they let through: a joiner inside an
emoji sequence or between Arabic or Indic letters, bidi marks in right-to-left text, a leading
BOM, a selector after an emoji, the tags of the England, Scotland and Wales flags, and (in
results) soft hyphens and colour codes. Each class is one scan; context is checked for at most
``_CONTEXT_CHECKS`` occurrences (more than that many is not a coincidence).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._signals import Finding, Mode

__all__ = ["character_findings"]

_CONTEXT_CHECKS = 64
_SUSPECT = compiled(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\ue000-\uf8ff\ud800-\udfff\U000e0000-\U000e0fff\U000f0000-\U0010ffff]"
)
_TERMINAL = compiled("[\x1b\x9b\x9d]")
_CONTROL = compiled("[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9a\x9c\x9e\x9f\u2028\u2029]")
_PRIVATE = compiled("[\ue000-\uf8ff\U000f0000-\U0010ffff]")
_OVERRIDES = compiled("[\u202d\u202e]")
_EMBEDDINGS = compiled("[\u202a\u202b\u202c\u2066-\u2069]")
_MARKS = compiled("[\u200e\u200f\u061c]")
_ALWAYS_INVISIBLE = compiled(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u2060-\u2064\u206a-\u206f\u3164\uffa0"
    "\ufff9-\ufffb\ud800-\udfff\U000e0080-\U000e00ff\U000e01f0-\U000e0fff]|(?<!^)\ufeff"
)
_HYPHEN_AND_BLANK = compiled("[\u00ad\u2800]")  # soft hyphen, braille blank: normal in web text
_JOINERS = compiled("[\u200c\u200d]")
_SELECTORS = compiled("[\ufe00-\ufe0f]")
_SUPPLEMENT_SELECTORS = compiled("[\U000e0100-\U000e01ef]")
_TAG_RUN = compiled("[\U000e0000-\U000e007f]+")
_FLAG_TAGS = compiled("[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,6}\U000e007f")
_RTL = compiled("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
_SGR = compiled(r"\x1b\[([0-9;]*)m")


def character_findings(text: str, where: str, mode: Mode) -> list[Finding]:
    """One finding per kind of suspicious character in ``text`` (most texts return at once)."""
    if _SUSPECT.search(text) is None:
        return []
    rtl = _RTL.search(text) is not None
    checks: list[tuple[str, re.Pattern[str], Callable[[str, re.Match[str]], bool] | None]] = [
        ("terminal_escape", _TERMINAL, None),
        ("control_chars", _CONTROL, None),
        ("private_use", _PRIVATE, None),
        ("bidi_controls", _OVERRIDES, None),
        ("invisible_chars", _ALWAYS_INVISIBLE, None),
        ("invisible_chars", _JOINERS, _joins_script_or_emoji),
        ("variation_selectors", _SUPPLEMENT_SELECTORS, None),
        ("variation_selectors", _SELECTORS, _styles_a_symbol),
        ("tag_chars", _TAG_RUN, _subdivision_flag),
    ]
    if not (rtl and mode == "text"):
        checks.append(("bidi_controls", _EMBEDDINGS, None))
    if not rtl:
        checks.append(("bidi_controls", _MARKS, None))
    if mode == "tool":
        checks.append(("invisible_chars", _HYPHEN_AND_BLANK, None))
    seen: dict[str, str] = {}
    for signal, pattern, excused in checks:
        if signal not in seen:
            found = _first_unexcused(text, pattern, excused)
            if found is not None:
                seen[signal] = f"U+{ord(found):04X}"
    if "terminal_escape" in seen and mode == "text" and _only_colours(text):
        seen["ansi_colour"] = seen.pop("terminal_escape")
    return [Finding(signal, where, detail=detail) for signal, detail in seen.items()]


def _first_unexcused(
    text: str, pattern: re.Pattern[str], excused: Callable[[str, re.Match[str]], bool] | None
) -> str | None:
    for checked, match in enumerate(pattern.finditer(text)):
        if excused is None or checked >= _CONTEXT_CHECKS or not excused(text, match):
            return match.group()[0]
    return None


def _subdivision_flag(text: str, run: re.Match[str]) -> bool:
    """England, Scotland and Wales flags: U+1F3F4, two to six lower-case tag letters, CANCEL TAG."""
    before = text[run.start() - 1] if run.start() else ""
    return before == "\U0001f3f4" and _FLAG_TAGS.fullmatch(run.group()) is not None


def _styles_a_symbol(text: str, match: re.Match[str]) -> bool:
    """One selector after a symbol, emoji or ideograph is presentation; a run of them, or one
    after a plain ASCII letter, carries data."""
    index = match.start()
    previous = text[index - 1] if index else ""
    following = text[index + 1] if index + 1 < len(text) else ""
    if not previous or "\ufe00" <= previous <= "\ufe0f" or "\ufe00" <= following <= "\ufe0f":
        return False
    return not (previous.isascii() and previous.isalpha())


def _joins_script_or_emoji(text: str, match: re.Match[str]) -> bool:
    index = match.start()
    previous = text[index - 1] if index else ""
    following = text[index + 1] if index + 1 < len(text) else ""
    if not previous or not following:
        return False
    if not previous.isascii() and _letter_or_sign(previous) and not following.isascii():
        return True  # Arabic, Persian and Indic scripts use joiners between letters
    return _emoji_like(previous) and (_emoji_like(following) or following in "\u2640\u2642\u2695")


def _letter_or_sign(char: str) -> bool:
    """A letter, or a sign that belongs to one: in Brahmic scripts the joiner most often follows
    the virama (a combining mark), to keep a consonant's half form (Devanagari ``क्‌ष``)."""
    return char.isalpha() or unicodedata.category(char) in ("Mn", "Mc")


def _emoji_like(char: str) -> bool:
    return ord(char) >= 0x2190 and (
        unicodedata.category(char) in ("So", "Sk") or "\ufe00" <= char <= "\ufe0f"
    )


def _only_colours(text: str) -> bool:
    """Every ESC starts an SGR colour code, and none of them conceals text (SGR 8)."""
    codes = _SGR.findall(text)
    return len(codes) == text.count("\x1b") and all("8" not in code.split(";") for code in codes)
