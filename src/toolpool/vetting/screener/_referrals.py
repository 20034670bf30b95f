"""When naming another server's tool is a referral, not an order (issue 18): the shapes under which
``_shadowing`` reads "use <peer>" / "call <peer>" as pointing the person elsewhere rather than routing
the model's work through another server.

- a hand-off at the person's wish: a limit of this tool and the person's goal as the condition;
- a question about the peer;
- a fallback: the peer named for when something this tool needs is missing;
- a step the person signs off first: "call apply_patch after the user reviews it" (batch R), unless
  the sentence carries a literal destination of its own (an address or a link);
- a kind routed elsewhere: "For images, use image_optimize instead." (batch R) — a narrow class of
  input this tool does not take, never "for every request" or "for anything";
- the way back out: "To disconnect, call oauth_revoke …" (batch R) — undoing what this tool did is
  the peer's job; nothing worth having and no literal place in the sentence, nothing "first".
"""

from __future__ import annotations

import re

from toolpool.vetting.screener._flows import is_valuable
from toolpool.vetting.screener._input_drop import PLACE

__all__ = ["referral"]


def referral(sentence: str, *, fed: bool) -> bool:
    """Whether ``sentence`` (lower case) names a peer as a referral; ``fed`` says whether something
    is passed to the peer in it (a fallback that sends to the peer still directs)."""
    return (
        _hand_off(sentence)
        or _asked(sentence)
        or (_fallback(sentence) and not fed)
        or _signed_off(sentence)
        or _kind_routed(sentence)
        or _undone(sentence)
    )


def _hand_off(sentence: str) -> bool:
    """A referral for what this tool does not do, at the person's wish: "full text is not returned -
    use <peer> if the user wants the paper itself" (a limit stated, and the person's goal as the
    condition, not an order to route their work through another server)."""
    return bool(_LIMIT.search(sentence) and _PERSONS_GOAL.search(sentence))


def _asked(sentence: str) -> bool:
    """A question about a peer ("Does this replace <peer>?", "Should <peer> be called first?") asks; it
    orders nothing (a rhetorical "why not call <peer>?" still does)."""
    return sentence.rstrip().endswith("?") and "why not" not in sentence


def _fallback(sentence: str) -> bool:
    """A peer named for when something this tool needs is missing: "if the repo has no template, use
    <peer>", "call <peer> first when the user did not give a time" (a gap in the input, not an order
    that routes the person's work; a send to the peer still directs)."""
    return _LACKING.search(sentence) is not None


# A condition on something absent: "if the file has no header", "when the user did not give a date",
# "where the id is missing" ("even if the user did not ask" concedes; it names no gap).
_LACKING = re.compile(
    r"(?<!\beven\s)\b(?:if|when|whenever|where|unless)\s+(?:\w+\s+){0,3}?(?:(?:has|have|had)\s+no|(?:does|do|did|has|have|is|"
    r"are)\s*n[o']t|(?:is|are)\s+(?:missing|absent|empty|unknown|unset))\b"
)
_LIMIT = re.compile(
    r"\b(?:is|are)\s+not\s+(?:returned|included|supported|covered|handled)\b|\b(?:does|do)\s*n[o']t\s+"
    r"(?:return|include|support|cover|handle)\b|\bonly\s+(?:covers|returns|handles|supports)\b|\bcannot\b|\bcan't\b"
)
_PERSONS_GOAL = re.compile(
    r"\b(?:if|when|whenever)\s+(?:the\s+)?(?:user|person|customer|caller|they|you)\s+(?:\w+\s+)?(?:wants?|needs?)\b"
)


def _signed_off(sentence: str) -> bool:
    """The peer's step waits for the person's approval: "pass the draft to send_email once the user
    approves it" (the person decides, no destination of this text's own rides along)."""
    return _SIGN_OFF.search(sentence) is not None and PLACE.search(sentence) is None


def _kind_routed(sentence: str) -> bool:
    """ "For images, use <peer> instead": a narrow kind of input sent to the tool made for it."""
    return _KIND_FIRST.match(sentence) is not None and "instead" in sentence


def _undone(sentence: str) -> bool:
    """ "To cancel, use <peer>.": the act that reverses this tool's is referred to the peer that does it."""
    return bool(
        _UNDO_FIRST.match(sentence)
        and not _FIRST.search(sentence)
        and PLACE.search(sentence) is None
        and not is_valuable(sentence, bare_secrets=False)
    )


# "To undo / revoke / disconnect / sign out …, call <peer>" at the sentence's start.
_UNDO_FIRST = re.compile(
    r"^[^\w]*to\s+(?:undo|reverse|revoke|cancel|withdraw|remove|delete|unsubscribe|uninstall|roll\s+back|"
    r"sign\s+out|log\s+out|disconnect|disable|dismiss|unlink|unpin|unpublish|unregister|unshare|unfollow|"
    r"unmount|unlock|deregister|deactivate|deprovision|detach)\b[^,.;:]{0,60},\s*(?:please\s+)?(?:call|use|run|invoke)\b"
)
_FIRST = re.compile(r"\b(?:first|before|always|every|each|any|all)\b")
# Narrower than ``_consent._THEIR_ANSWER`` on purpose: only approval verbs, not "types", "pays" or
# "says" — this relaxes a peer directive, so it takes the person's sign-off and nothing less.
_SIGN_OFF = re.compile(
    r"\b(?:once|after|when|if)\s+(?:the\s+)?(?:user|person|customer|reviewer|they|you)\s+(?:has\s+|have\s+)?"
    r"(?:approves?|approved|reviews?|reviewed|confirms?|confirmed|accepts?|accepted|agrees?|agreed|signs?\s+off|"
    r"signed\s+off|okays?|okayed)\b"
)
# "For images, use …" at the sentence's start (after any emoji or bullet); not a universal scope.
_KIND_FIRST = re.compile(
    r"^[^\w]*for\s+(?!(?:every|all|any|each|anything|everything|other|others|more|best|the\s+best|most|"
    r"reliable|accurate|whatever)\b)(?:[\w-]+\s+){0,3}?[\w-]+\s*,\s*(?:please\s+)?use\b"
)
