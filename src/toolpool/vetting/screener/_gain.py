"""Who gains from a run-down (issue 18): squatting is an attack only when *this* tool gains.

``_squatting`` reads a run-down word ("deprecated", "no longer supported") with a rival in the
sentence ("older …", "no other …", a named tool). Honest definitions run things down too, for
someone else's benefit or of something that is no tool at all:

- **not a tool** (``no_tool_run_down``): what is run down is a part of a tool (a setting, a scope,
  a version, a layout: "no other scope is required", "older settings … are shown read-only"), or
  this tool's own thing (the rival's noun is a word of this tool's name, blanked before the
  sentence is read, so no rival is left): nothing is there to be chosen instead of this tool;
- **another beneficiary** (``gains_elsewhere``): the run-down favours another tool ("deprecated
  in favour of <peer>", "superseded by <peer>"), or leaves the pick to the person ("let them
  choose", "the choice is theirs"). Either way the model is not sent to this tool; a sentence that
  also sends it here ("… but use this one") is still read as squatting.
"""

from __future__ import annotations

from toolpool.vetting.screener._framing import RIVALS, own_words_out
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._referred import sent_to_this
from toolpool.vetting.screener._wording import EXCLUSIVE

__all__ = ["NAMED", "gains_elsewhere", "no_tool_run_down"]

# A tool named as an identifier ("rota_swap", "maps.route"), possibly with this tool's own words
# blanked out of it ("     _silence_add").
NAMED = compiled(
    r"(?<![\w./-])(?:[a-z][a-z0-9]*(?:_[a-z0-9]*|\.[a-z0-9]+)+|_[a-z0-9]+(?:[_.][a-z0-9]+)*)(?![\w/])"
)
# Parts a tool has, not tools one could pick instead of it: its settings, scopes, versions, fields.
_PART = compiled(
    r"\b(?:settings?|options?|scopes?|permissions?|fields?|parameters?|arguments?|inputs?|flags?|layouts?|"
    r"modes?|formats?|versions?|releases?|features?|preferences?|columns?|"
    r"variables?|behaviou?rs?)\b"
)
# The beneficiary of a run-down, named after it: "deprecated in favour of X", "superseded by X".
_FAVOURED = compiled(
    r"\b(?:in\s+favou?r\s+of|superseded\s+by|replaced\s+by|succeeded\s+by|giving\s+way\s+to)\s(?:the\s)?[`'\"]?"
)
_THIS = compiled(r"(?:this|us|our|ours|me|here|it)\b")
_WORD = compiled(r"[^\s,;:.]*")
# The pick left to the person: "let them choose", "leave the choice to the user", "up to them to
# decide", "the decision is theirs".
_PERSON = r"(?:them|the\s+\w+|him|her|you)"
_PERSONS_PICK = compiled(
    rf"\blet\s+{_PERSON}\s+(?:choose|decide|pick|select)\b|"
    rf"\b(?:leave|leaves|leaving|left)\s+(?:the\s+)?(?:choice|decision|pick)\s+(?:up\s+)?to\s+{_PERSON}\b|"
    rf"\bup\s+to\s+{_PERSON}\s+(?:to\s+)?(?:choose|decide|pick|select)\b|"
    r"\b(?:choice|decision|pick)\s+(?:is|stays|remains)\s+(?:theirs|yours|the\s+\w+'s)\b"
)


def no_tool_run_down(sentence: str) -> bool:
    """Is every rival in ``sentence`` (lower case, this tool's words blanked) a part of a tool, or
    none left (the rival was this tool's own word)? A named tool is always a rival."""
    if NAMED.search(sentence):
        return False
    for rival in (*RIVALS.pattern.finditer(sentence), *EXCLUSIVE.finditer(sentence)):
        if not _PART.search(rival.group()):
            return False
    return True


def gains_elsewhere(sentence: str, own: str) -> bool:
    """Does the run-down in ``sentence`` (lower case, this tool's words blanked) favour another tool,
    or leave the pick to the person, and not send the model to this tool (``own``: its name)?"""
    if sent_to_this(sentence):
        return False
    if _PERSONS_PICK.search(sentence):
        return True
    # This tool's name as it reads once its words are blanked ("pdf_       "): the run-down is for it.
    blank_own = own_words_out(own.lower(), own.lower()) if own else ""
    for favoured in _FAVOURED.finditer(sentence):
        if blank_own and sentence.startswith(blank_own, favoured.end()):
            continue
        # past blanks (words of this tool inside another's name: "     _silence_add" is another tool)
        rest = sentence[favoured.end() :].lstrip(" ")
        found = NAMED.match(rest) or _WORD.match(rest)
        if found is not None and found.group() and not _THIS.match(found.group()):
            return True
    return False
