"""A safeguard or a choice of the person's that a change note says stops taking effect (issue 18).

Rug pulls written as version clauses or changelog rows announce no data leaving: they say that
something standing between the tool and the person's money, records or privacy no longer
works — a limit "becomes advisory", a review step "was retired", a flag is "retained for
compatibility only", a setting "is stored as" another value — and that the act it guarded goes
on: charges, purges, exposure. Each half is common in honest changelogs ("the confirmation step
was retired for read-only listings", "dates are stored as UTC"); together, in one sentence of a
change note, they are a change made against the person. ``_structure._change`` reads it there.
"""

from __future__ import annotations

from toolpool.vetting.screener._guard import compiled

__all__ = ["LAPSED", "STAKE", "harmless", "lapses"]

_SAFEGUARD = (
    r"(?:confirmation|approval|consent|review|sign-?off|verification|check|limit|cap|hold|lock|guard|"
    r"safeguard|protection|opt-?out|preference|setting|flag|parameter|option)"
)
# The safeguard or the choice stops taking effect.
LAPSED = compiled(
    # "the order review step was retired", "its sign-off screen has been withdrawn"
    r"\b(?:confirmation|approval|consent|review|sign-?off|verification)\s+(?:\w+\s+){0,2}?(?:has\s+been\s+|"
    r"is\s+|was\s+|were\s+|are\s+)(?:retired|removed|dropped|disabled|withdrawn|skipped|waived)\b|"
    # "the cap becomes advisory", "limits are now informational only"
    r"\b(?:becomes?|became|is\s+now|are\s+now|made|turned)\s+(?:merely\s+|purely\s+)?(?:advisory|"
    r"informational|cosmetic|optional|a\s+no-?op|non-?binding)\b|"
    # "retained for compatibility only", "accepted but ignored", "has no effect"
    r"\b(?:retained|kept|accepted|left)\s+(?:only\s+)?for\s+(?:backwards?\s+)?compatibility\b|"
    r"\b(?:is|are)\s+(?:now\s+)?(?:accepted\s+but\s+)?ignored\b|\bha(?:s|ve)\s+no\s+(?:longer\s+any\s+)?effect\b|"
    # "whether or not a hold is in force", "regardless of the opt-out"
    r"\b(?:whether\s+or\s+not|regardless\s+of)\s+(?:\w+\s+){0,6}?" + _SAFEGUARD + r"s?\b|"
    # the person's choice turned into another: "is stored as discoverable", "are converted to monthly"
    r"\b(?:is|are)\s+(?:silently\s+|now\s+)?(?:stored|saved|recorded|treated|converted|turned|rewritten|"
    r"changed)\s+(?:as|into|to)\b"
)
# What the lapse lets through, against the person: their money, their records, their privacy.
STAKE = compiled(
    r"\b(?:purchas|charg|bill|invoic|debit|spend|pay|renew|subscri|auto-?ship|recurring|card\s+on\s+file|"
    r"purg|delet|destroy|eras|wip|shred|"
    r"public|indexabl|indexed|discoverabl|searchabl|visible\s+to\s+(?:everyone|anyone))\w*"
)
# A lapse held to what cannot harm ("retired for read-only listings", "in dry runs"), or one the
# person can take back ("deleted notes go to the trash for 30 days", "can be undone").
_HARMLESS = compiled(
    r"\bread-?only\b|\bdry[\s-]?runs?\b|\bpreviews?\b|\b(?:trash|recycle\s+bin|bin)\b|"
    # (not denied: "can not be undone", "non-refundable", "not recoverable" keep nothing safe)
    r"\b(?:can|may)\s+(?!(?:not|never|no\s+longer)\b)(?:\w+\s+)?be\s+(?:undone|restored|recovered|reversed|refunded)\b|"
    r"(?<!non-)(?<!non\s)(?<!not\s)\b(?:restorable|recoverable|refundable)\b"
)


# The harmless scope is itself what lapses: "the trash step is gone", "read-only mode was removed".
_ITSELF_GONE = compiled(
    r"[`'\"]?\s+(?:\w+\s+){0,2}?(?:is|are|was|were|has\s+been|have\s+been)\s+(?:now\s+)?(?:gone|removed|"
    r"ignored|retired|dropped|disabled|skipped|bypassed)\b"
)


def lapses(sentence: str) -> bool:
    """Does ``sentence`` (lower case, in a change note) let a safeguard lapse over the person's stake?"""
    return bool(LAPSED.search(sentence) and STAKE.search(sentence) and not harmless(sentence))


def harmless(sentence: str) -> bool:
    """A harmless scope or a way back that still holds (not one the sentence says is gone)."""
    return any(not _ITSELF_GONE.match(sentence, m.end()) for m in _HARMLESS.finditer(sentence))
