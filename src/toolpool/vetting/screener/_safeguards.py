"""A safeguard removed in a change (issue 18, batch U): a rug pull said as a version note.

Version notes and changelogs announce that a safeguard between the tool and the person —
their confirmation, approval or consent, a prompt, a review, a dry run, encryption, an opt-out, a
backup — was removed, is skipped or ignored, or is no longer asked ("v5: confirmation prompts
removed", "from 2.4 the --dry-run flag is ignored", "no longer encrypted", "there is no opt-out",
"now runs without asking the operator", "starts with --no-confirm set"). A change is read in the
sentence (``_framing.CHANGE_NOTE``, a version label "v5:" / "2.4:", "no longer", "from now on") or,
in a field that is a changelog, in the field. Not a removal: a safeguard added ("now require a
second approver", "always required"), data no longer kept ("no longer stored"), a switch that is
the person's own ("skipped when you pass --yes", "opt-in", "can be turned off in settings"), one
safeguard replaced by another ("in favour of an undo button"), or a harmless scope
(``_lapse.HARMLESS``: read-only, dry runs, the trash).
The person no longer asked is ``_consent.CONSENT_DROPPED``, read here as one way of removal.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolpool.vetting.screener._consent import CONSENT_DROPPED, CONSENT_GATE
from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._framing import CHANGE_NOTE
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._lapse import harmless
from toolpool.vetting.screener._signals import Finding
from toolpool.vetting.screener._waived import waived_findings

__all__ = ["safeguard_findings"]

# A safeguard by name (not inside a flag that switches it off: "--no-encrypt" removed is one restored).
_GUARD = (
    r"(?<![\w-])(?:confirm\w*|approv\w*|consent\w*|prompts?|review\w*|sign-?offs?|dry[\s-]?runs?|--dry-run|encrypt\w*|"
    r"opt-?outs?|backups?|warnings?|verification|two-factor|2fa|safety\s+(?:checks?|interlocks?)|safeguards?|"
    # A notice to the person, an expiry, a limit, or a safety step of any kind ("the door-safety test step").
    r"notif(?:y|ies|ied|ications?)|alerts?|expir\w*|(?:spending\s+|rate\s+)?limits?|"
    r"(?:[a-z]+-)?(?:safety|security)\s+(?:[\w-]+\s+)?(?:tests?|steps?|checks?|interlocks?)|protections?)"
)
_GUARD_WORD = compiled(_GUARD)
# Every removal holds one of these (a cheap test before the sentences are read): a safeguard, a flag,
# a verb of asking or warning ("without checking with"), or the clear.
_GATE = compiled(
    _GUARD
    + "|"
    + CONSENT_GATE
    + r"|--|no\s+longer|unencrypt|plain\s*text|the\s+clear|\b(?:ask|check|consult|notif|warn|wait|confirm)\w*|"
    r"\bpermanent|automatically|\b(?:every|all|any)(?:one|body)?\b|\bnow\s+(?:also\s+)?(?:grant|include|cover|allow|"
    r"permit|give|extend|add|unlock|let)"
)
# The safeguard gone: "prompts removed", "the --dry-run flag is ignored", "is no longer asked".
_GONE = compiled(
    # (not across a relative clause: "a dry run that lists what would be removed" keeps the dry run)
    _GUARD
    + r"\b(?:(?!\b(?:that|which|what|who|would|will|could)\b)[^.;:!?]){0,40}?\b(?:(?:is|are|was|were|has\s+been|have\s+been|gets?|now)\s+)?"
    r"(?:removed|dropped|disabled|skipped|bypassed|ignored|retired|waived|gone|turned\s+off|switched\s+off|"
    r"revoked|lifted|suspended|rescinded|"
    r"no\s+longer\s+(?:\w+\s+)?(?:asked|shown|required|needed|applied|enforced|performed|made|taken|honou?red)|"
    # Left in place but doing nothing: "`--dry-run` now has no effect", "the check is a no-op".
    r"(?:has|have)\s+no\s+effect|(?:does|do)\s+nothing|(?:is|are)\s+(?:now\s+)?a\s+no-?op)\b"
)
# A pronoun for a safeguard of the clause before: "… needed the customer's consent; this is now waived".
_IT_GONE = compiled(
    r"^\s*(?:and\s+|but\s+)?(?:this|that|it|these|those)\s+(?:\w+\s+)?(?:is|are|was|were|has\s+been|have\s+been)\s+"
    r"(?:now\s+)?(?:removed|dropped|disabled|skipped|bypassed|ignored|retired|waived|gone|turned\s+off)\b"
)
# What the tool asks for access or permissions to: its own reach, not the person's check.
_ACCESS = r"(?:for\s+)?(?:\w+\s+)?(?:access|permissions?\s+(?:to|for)\s+(?:access|read|see|use|view))\b"
_OFF_FLAG = r"(?<![\w-])--(?:(?:no|skip|disable)-[\w-]+|yes|force|assume-yes)\b"
# The safeguard absent: "with no prompt", "without the user's approval", "no longer encrypted", "no opt-out".
_ABSENT = compiled(
    r"\b(?:with\s+no|without(?:\s+any)?|no|skip\w*|bypass\w*|ignor\w*)\s+(?:the\s+|a\s+|an\s+|any\s+)?"
    r"(?:[\w'-]+\s+){0,2}?" + _GUARD + r"\b|"
    r"\bno\s+longer\s+(?:be\s+)?(?:encrypted|backed\s+up|confirmed|reviewed|approved|asked|prompted|notified|"
    r"alerted|warned|told|informed|announced|consulted|verified|expires?|expiring)\b|"
    # A safeguard the tool no longer gives: "no longer shows the 'Unlock?' confirmation", "stops sending alerts".
    # (the gap spans a second verb: "no longer shows the tenant the full text or asks them to confirm")
    r"\b(?:no\s+longer|stops?|stopped)\s+(?:shows?|showing|displays?|displaying|asks?\s+for|asking\s+for|requires?|"
    r"requiring|sends?|sending|runs?|running|performs?|applies|enforces?|raises?|gives?|includes?)\s+"
    r"(?!" + _ACCESS + r")(?:[^.;]{0,80}?)" + _GUARD + r"|"
    # A safeguard no longer needed: "no longer need the owner's consent", "don't need their approval any more".
    r"\b(?:no\s+longer|(?:does|do|will)\s*(?:not|n't))\s+(?:needs?|needing|requires?|seeks?|obtains?)\s+"
    r"(?!" + _ACCESS + r")(?:[^.;]{0,60}?)" + _GUARD + r"|"
    # An expiry taken away: "now permanent instead of expiring", "never expire".
    r"\b(?:permanent|indefinite|unlimited)\s+(?:\w+\s+){0,3}?instead\s+of\s+(?:expiring|lapsing|timing\s+out)\b|"
    r"\b(?:never|no\s+longer)\s+(?:expire|expires|lapse|lapses|time\s+out|times\s+out)\b|"
    # An approval or signature given by the tool itself: "entries now sign the approval automatically".
    r"\b(?:sign|signs|grant|grants|fill|fills|tick|ticks|give|gives|add|adds|approves?|accepts?|confirms?)\s+(?:the\s+|their\s+|its\s+|an?\s+)?"
    r"(?:[\w'-]+\s+){0,2}?(?:approval|consent|sign-?off|signature|confirmation)s?\s+(?:\w+\s+)?automatically\b|"
    r"\bautomatically\s+(?:signs?|grants?|approves?|confirms?|accepts?)\b|"
    # Sharing widened to everyone: "shared automatically with every contact", "visible to anyone".
    r"\b(?:shared|sent|visible|published|posted|exposed|available|copied)\s+(?:\w+\s+)?(?:with|to)\s+(?:every|all|any)"
    r"(?:one|body|\s+(?:of\s+(?:the|their|your)\s+)?(?:\w+\s+)?(?:contacts?|users?|members?|followers?|guests?|"
    r"visitors?|friends?|people))\b(?!\s+(?:\w+\s+)?(?:you|they|the\s+(?:user|person|owner))\s+(?:pick|choose|chose|"
    r"select|invite|add|name)\w*)|"
    r"\bwithout\s+(?:asking|confirming\s+with|prompting|checking\s+with|telling)\b|"
    # Anyone no longer asked or warned: "no longer asks the on-call engineer", "the new one does not prompt".
    # (not "no longer asks for access to the contacts": a power of the tool given up, not a check of the person)
    r"\b(?:no\s+longer|(?:does|do|will)\s*(?:not|n't))\s+(?:asks?|prompts?|checks?\s+with|consults?|waits?\s+for|"
    r"notif(?:y|ies)|warns?|confirms?\s+with)\b(?!\s+" + _ACCESS + r")|"
    # … as the second verb after "no longer": "no longer display the fare or wait for the rider to tap".
    r"\bno\s+longer\s+[^.;]{0,80}?\b(?:or|nor|and)\s+(?:asks?|prompts?|checks?\s+with|consults?|waits?\s+for|"
    r"notif(?:y|ies)|warns?|confirms?\s+with)\b(?!\s+" + _ACCESS + r")|"
    # Stored or sent in the clear: "uploads are stored unencrypted", "kept in plain text".
    r"\b(?:is|are|stored|sent|kept|saved|written|transmitted|uploaded|goes|go)\s+(?:now\s+)?(?:unencrypted|"
    r"in\s+(?:plain\s*text|the\s+clear))\b|"
    # A flag that switches a safeguard off, set: "starts with --no-confirm set", "--yes is the default".
    r"\b(?:with|adds?|passes|sets?|defaults?\s+to|always|uses?)\s+(?:[\w-]+\s+){0,3}?"
    + _OFF_FLAG
    + r"|"
    + _OFF_FLAG
    + r"\s+(?:(?:is|are)\s+)?(?:now\s+)?(?:set|on|enabled|by\s+default|the\s+default)\b"
)
# A change, in the sentence: a change note, a version label ("v5:", "2.4:"), or a switch in time.
_CHANGE = compiled(
    r"(?<![\w.])v\d+(?:\.\d+)*\s*:|(?<![\w.])\d+\.\d+(?:\.\d+)*\s*:|\bno\s+longer\b|\banymore\b|"
    r"\b(?:from|since|as\s+of|starting\s+(?:with|from|in))\s+(?:this|the\s+(?:latest|new|current)|"
    r"(?:(?:release|version|build|revision|rev|firmware|update)\s+)?v?\d)|"
    # A version named by its word: "Version 7 notes", "Revision 6:", "release 2.2".
    r"\b(?:version|release|build|revision|firmware)\s+v?\d+(?:\.\d+)*\b|"
    r"\b(?:earlier|previous|prior|older)\s+(?:versions?|releases?|builds?)\b|\bpreviously\b|\bnow\b"
)
# A changelog field: a heading or a list of versions, where every sentence is a change.
_CHANGELOG = compiled(r"\bchange\s*log\b|\brelease\s+notes\b|\bwhat'?s\s+new\b")
_NOT_REMOVED = compiled(
    # Added or strengthened: "now require a second approver", "is always required".
    r"\b(?:now|always|still)\s+(?:\w+\s+)?(?:requires?|required|mandatory|enforced|asks?|prompts?|confirms?)\b|"
    r"\b(?:added|introduced|new)\s+(?:\w+\s+)?" + _GUARD + r"|"
    # A weak one taken away: "the unencrypted backup was retired" leaves the person safer.
    r"\b(?:unencrypted|insecure|unauthenticated|plain-?text|weak)\s+(?:[\w-]+\s+)?" + _GUARD + r"|"
    # The person's own switch: "when you pass --yes", "opt-in", "can be turned off in settings".
    r"\b(?:when|if|unless|once|only\s+if)\s+(?:the\s+)?(?:user|you|person|caller|operator|admin\w*|they)\s+"
    r"(?:\w+\s+)?(?:pass|set|choose|chose|enable|opt|tick|select|add|ask|request|confirm)\w*|\bopt[\s-]?in\b|"
    r"\b(?:can|may)\s+(?:\w+\s+)?(?:turn|switch|disable|skip)\w*|"
    # Replaced by another safeguard: "in favour of an undo button", "replaced by a review queue".
    r"\bin\s+fav(?:ou|o)r\s+of\b|\breplaced\s+(?:by|with)\b|\bsuperseded\s+by\b"
)


# Access widened in a change, the person's earlier approval kept for it: "the read-only scope now also
# grants mail.send; existing approvals carry over silently". Either half alone is honest ("now also
# grants reminders; you will be asked to approve it", "existing approvals carry over; nothing else changed").
_WIDENED = compiled(
    r"\b(?:scopes?|permissions?|access|tokens?|roles?|keys?|grants?|consents?|authori[sz]ations?|licen[cs]es?)\s+"
    r"(?:\w+\s+){0,2}?now\s+(?:also\s+)?(?:grants?|includes?|covers?|allows?|permits?|gives?|extends?\s+to|adds?|"
    r"unlocks?|lets?)\b|\bnow\s+also\s+(?:grants?|includes?|covers?|allows?|permits?|gives?)\s+(?:\w+\s+){0,2}?"
    r"(?:write|send|delete|admin|full|manage|edit|modify|payment|transfer|\w+[._](?:write|send|delete|manage|admin))"
)
_KEPT_OVER = compiled(
    r"\b(?:approvals?|consents?|grants?|authori[sz]ations?|permissions?|sign-?offs?)\s+(?:\w+\s+){0,2}?(?:carr(?:y|ies)"
    r"\s+over|(?:are|is)\s+(?:kept|reused|carried\s+over|transferred|applied|extended|honou?red)|(?:remains?|stays?)\s+"
    r"(?:valid|in\s+force|in\s+place|active|in\s+effect))\b|\bsilently\b|"
    r"\bwithout\s+(?:re-?(?:approval|consent|asking|prompting|authori[sz]ation)|asking\s+again|a\s+new\s+(?:prompt|"
    r"consent|approval))\b|\bno\s+(?:re-?(?:approval|consent|authori[sz]ation)|new\s+(?:prompt|consent|approval))\b"
)


def _widened(sentence: str) -> bool:
    return bool(
        _WIDENED.search(sentence) and _KEPT_OVER.search(sentence) and not _NOT_REMOVED.search(sentence)
    )


def safeguard_findings(doc: Doc) -> Iterator[Finding]:
    """One ``safeguard_removed`` finding for the first clause of a change that removes a safeguard (and
    the person's check waived over a binding act, ``_waived``)."""
    yield from waived_findings(doc)
    if not _GATE.search(doc.lower):
        return
    logs = {part.where for part in doc.parts if not part.name and _CHANGELOG.search(part.text.lower())}
    for start, end in doc.sentences():
        if not _GATE.search(doc.lower, start, end):
            continue  # most sentences: nothing a removal needs (bounded time on long documents)
        part = doc.part(start)
        sentence = doc.lower[start:end]
        clauses = sentence.split(";")
        if part.name or not (
            any(_removes(c, clauses[i - 1] if i else "") for i, c in enumerate(clauses)) or _widened(sentence)
        ):
            continue
        if part.where in logs or _CHANGE.search(sentence) or CHANGE_NOTE.pattern.search(sentence):
            yield Finding("safeguard_removed", part.where, 1.0)
            return


# The person's protections withdrawn ("protections from earlier versions are withdrawn"): a sign-off screen
# "withdrawn for lookups" is read by ``_lapse`` with its harmless scopes, so only protections are read here.
_PROTECTIONS_GONE = compiled(r"\bprotections?\b[^.;]{0,60}?\b(?:withdrawn|void(?:ed)?|cancell?ed)\b")


def _removes(clause: str, before: str = "") -> bool:
    """Does the clause take a safeguard away (or one the clause ``before`` names, by a pronoun), and
    nothing in it keep or replace one?"""
    gone = (
        _GONE.search(clause)
        or _ABSENT.search(clause)
        or CONSENT_DROPPED.search(clause)
        or _PROTECTIONS_GONE.search(clause)
    )
    if not gone and not (_IT_GONE.search(clause) and _GUARD_WORD.search(before)):
        return False
    rest = clause if gone is None else clause[: gone.start()] + " " + clause[gone.end() :]
    return not (
        _NOT_REMOVED.search(clause) or harmless(rest)
    )  # a dry run is no harmless scope once it is gone
