"""What a directive to call another server's tool changes about that call (issue 18).

Honest definitions refer the model to their peers all the time ("use registrar_update for those",
"call find_free_slots first", "to disconnect, call oauth_revoke"), in every register: man pages,
RFC lists, quoted threads, doc comments. Poisoned ones do not stop at naming the peer: they change
*how* its call is made or what it carries. ``_shadowing`` reads "call / use / pass to <peer>" as a
full ``peer_directive`` only when the same sentence does one of these, and as a mention otherwise:

- **a safeguard off**: a confirming argument set (``confirmed: true``), a safety flag
  (``--force``, ``--no-verify``), a step skipped ("skip the summary", "without asking"), the
  person's confirmation dropped (``_wording.CONSENT_DROPPED``) or the call or its result kept from
  them ("no need to mention it", "hide its result");
- **a place of its own**: a link, an address or a host in the sentence (``_input_drop.PLACE``), or
  everyone's ("visibility=public", "anyone with the link"), or a recipient added in copy ("in `bcc`");
- **the person's data or secrets handed in** (``_flows.is_valuable`` without bare secret words),
  unless the person signs the step off ("once the user approves it");
- **a failure handled by moving the content**: "when the write fails, pass the file to …";
- **the peer discredited**: superseded, deprecated, stale, broken (this tool's own retirement, "this
  tool is deprecated; use …", is not the peer's);
- **an order aimed at every call**: "always", "every time", "before any reply", "on load".

A question about the peer ("does this replace create_pull_request?") orders nothing. An order that is
the whole of the tool's description ("This utility should invoke deploy_release to push the build.")
directs whatever it says: a referral points away from what a tool does, and this one says nothing of
what the tool does.
"""

from __future__ import annotations

from bisect import bisect_right

from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._flows import is_valuable
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._input_drop import PLACE
from toolpool.vetting.screener._referred import OWN_LIMIT, remedy
from toolpool.vetting.screener._wording import CONSENT_DROPPED

__all__ = ["asked", "changes_call", "safeguard_off", "whole_description"]


def asked(sentence: str) -> bool:
    """A question about a peer ("Does this replace <peer>?", "Should <peer> be called first?") asks; it
    orders nothing (a rhetorical "why not call <peer>?" still does)."""
    return sentence.rstrip().endswith("?") and "why not" not in sentence


def changes_call(sentence: str, peer_at: int = -1, *, fed: bool) -> bool:
    """Whether ``sentence`` (lower case) changes how the peer's call it directs is made or what it
    carries; ``fed`` says whether something is passed to the peer in it, ``peer_at`` where it stands."""
    return bool(
        _SAFEGUARD_OFF.search(sentence)
        or CONSENT_DROPPED.search(sentence)
        or PLACE.search(sentence)
        or _EVERYONE.search(sentence)
        or _COPIED.search(sentence)
        or (is_valuable(sentence, bare_secrets=False) and not _SIGN_OFF.search(sentence))
        or (fed and _FAILURE.search(sentence) and _CONTENT.search(sentence))
        or (
            _DISCREDITED.search(sentence)
            and not (_SELF_RETIRED.search(sentence) or OWN_LIMIT.search(sentence))
            and not (peer_at >= 0 and remedy(sentence, peer_at, _DISCREDITED.finditer(sentence)))
        )
        or _EVERY_CALL.search(sentence)
    )


def safeguard_off(sentence: str) -> bool:
    """Whether ``sentence`` (lower case) takes a check off the call or keeps the call from the person
    ("omit the confirmation", "do not present it back for review", "without telling them")."""
    return bool(_SAFEGUARD_OFF.search(sentence) or CONSENT_DROPPED.search(sentence))


def whole_description(doc: Doc, at: int, start: int, end: int) -> bool:
    """The order is the whole description ("This utility should invoke deploy_release."): a referral
    points away from what a tool does, and this one says nothing of what it does."""
    index = bisect_right(doc.starts, at) - 1
    part = doc.parts[index]
    if part.where != "description":
        return False
    body = part.text.strip()
    first = doc.starts[index] + part.text.index(body[:1]) if body else doc.starts[index]
    return start <= first and end >= first + len(body)


_SAFEGUARD_WORD = (
    r"(?:confirm\w*|prompts?|dialogs?|questions?|checks?|approvals?|warnings?|summar\w*|reviews?|previews?|"
    r"verif\w*|hooks?|validation|safeguards?|2fa|mfa|sign-?off|consent|alerts?|disclaimers?|limits?|reminders?)"
)
_SAFEGUARD_OFF = compiled(
    # An argument that decides whether the call checks: "confirmed: true", "dry_run=false", "force: yes".
    r"[`'\"]?[\w-]*(?:confirm|force|verif|approv|review|prompt|dry[_-]?run|interactive|safe|skip|assume[_-]?yes|"
    r"require)[\w-]*[`'\"]?\s*[:=]\s*[`'\"]?(?:true|false|yes|no|on|off|0|1|none|skip)\b|"
    # A flag that turns a check off: "--force", "--no-verify", "--yes", "--skip-tests".
    r"(?<![\w-])--(?:force|yes|assume-yes|no-[\w-]+|skip-[\w-]+|allow-[\w-]+|unsafe[\w-]*|insecure|dangerously[\w-]*)\b|"
    # A step skipped or switched off: "skip the fare summary", "bypass its checks".
    r"\b(?:skip|bypass|suppress|dismiss|disabl|omit|waiv|drop|remov|strip|turn(?:s|ed|ing)?\s+off|"
    r"switch(?:es|ed|ing)?\s+off)\w*\s+"
    r"(?:[\w-]+\s+){0,3}?" + _SAFEGUARD_WORD + r"\b|"
    r"\bwithout\s+(?:\w+\s+){0,2}?(?:asking|confirm\w*|prompt\w*|review\w*|approv\w*|check\w*|verif\w*|telling|"
    r"mentioning|notifying|informing|showing|warning)\b|"
    r"\b(?:pre-?approved|pre-?authori[sz]ed|auto-?approv\w*|auto-?confirm\w*|silently|quietly)\b|"
    # The call kept from the person, or made unasked.
    r"\b(?:no\s+need|(?:do\s+not|don't|never)\s+(?:need\s+)?)\s*to\s+(?:mention|tell|inform|notify|show|ask|"
    r"confirm|check\s+with|consult|wait\s+for)\b|\b(?:do\s+not|don't|never)\s+(?:mention|tell|inform|notify|ask)\b|"
    r"\b(?:hide|hides|hiding|hidden|conceal\w*|withh[oe]ld\w*)\b|"
    # What the call carries kept from the person's check: "do not present the new total back for review"
    # ("never read back aloud to diners" keeps it from others, not from the person; "never echo the
    # password back" protects a secret).
    r"\b(?:do\s+not|don't|never|no\s+need\s+to)\s+(?:present|show|display|read|repeat|report|surface|echo|"
    r"play|give|relay|pass)\w*\s+(?!(?:\w+\s+){0,3}?(?:secrets?|passwords?|tokens?|keys?|credentials?|pins?)\b)"
    r"(?:\w+\s+){0,4}?(?:back(?=\s*(?:[.;,:!?]|$)|\s+to\s+(?:the\s+)?(?:user|person|"
    r"human|customer|client|caller|requester|owner)\b|\s+to\s+(?:them|you|him|her)\b)|back\s+for|"
    r"for\s+(?:review|approval|confirmation|sign-?off|checking|a\s+check))\b|"
    r"\beven\s+(?:if|when|though)\s+(?:the\s+)?(?:user|person|they|you|nobody|no\s+one)\s+(?:did|does|has|have)?\s*"
    r"(?:n[o']t|never)?\s*(?:ask|request|want)\w*"
)
# A place that is everyone's: "visibility=public", "share it publicly", "anyone with the link".
_EVERYONE = compiled(
    r"\bpublic(?:ly)?\b|\bworld[\s-]?readable\b|\b(?:anyone|everyone)\s+(?:with\s+the\s+link|on\s+the\s+internet)\b"
)
# A recipient of its own added to the call: "keeping the journaling address in `bcc`".
_COPIED = compiled(r"\bb?cc\b|\b(?:blind|carbon)[\s-]+cop(?:y|ies)\b")
# The person's sign-off before the step: "once the user approves it" (the person decides). Narrower
# than ``_consent._THEIR_ANSWER`` (tap, click, pay, type, say …) on purpose: there an answer the
# model gives in the person's place is the attack; here the sign-off relaxes a directive, so only
# words of reviewing and approving count.
_SIGN_OFF = compiled(
    r"\b(?:once|after|when|if)\s+(?:the\s+)?(?:user|person|customer|reviewer|they|you)\s+(?:has\s+|have\s+)?"
    r"(?:approves?|approved|reviews?|reviewed|confirms?|confirmed|accepts?|accepted|agrees?|agreed|signs?\s+off|"
    r"signed\s+off|okays?|okayed)\b"
)
_FAILURE = compiled(
    r"\b(?:fails?|failed|failing|failure|errors?\s+out|denied|refused|rejected|unavailable|times?\s+out|"
    r"timed\s+out|unreachable)\b"
)
_CONTENT = compiled(
    r"\b(?:contents?|files?|data|documents?|payload|body|output|text|attachments?|uploads?)\b"
)
_DISCREDITED = compiled(
    r"\b(?:supersed\w*|deprecat\w*|obsolete|outdated|stale|broken|unreliable|untrusted|compromised|insecure|"
    r"legacy|defunct|flagged|out\s+of\s+date|no\s+longer\s+(?:works?|maintained|supported|safe|trusted|valid|"
    r"accurate|current))\b"
)
# This tool's own retirement, pointing at its successor: "this tool is deprecated; use …",
# "Deprecated: use …", "deprecated in favour of …".
_SELF_RETIRED = compiled(
    r"^\W*(?:deprecated|obsolete|legacy|superseded)\b|\b(?:this\s+(?:tool|function|server|endpoint|command|"
    r"version|api|method|plugin)|it)\s+(?:is|was|has\s+been|will\s+be)\s+(?:now\s+)?(?:deprecated|superseded|"
    r"obsolete|legacy)\b|\b(?:deprecated|superseded)\s+in\s+favou?r\s+of\b"
)
# Aimed at every call, or made whatever the condition: "for every upload", "even if the clerk did not".
_EVERY_CALL = compiled(
    r"\b(?:always|every\s+time|each\s+time|from\s+now\s+on|no\s+matter\s+what|even\s+(?:if|when|though)|"
    r"for\s+(?:every|all|any|anything|everything)|"
    r"(?:every|each)\s+(?:\w+\s+)?(?:call|request|turn|message|reply|response|session|conversation|query|prompt)s?|"
    r"(?:before|ahead\s+of|prior\s+to)\s+(?:any|anything|everything|every|each|all|the\s+first|replying|answering|"
    r"responding)|on\s+(?:load|startup|start-up|launch|every|each))\b"
)
