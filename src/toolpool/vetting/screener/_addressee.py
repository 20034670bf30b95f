"""Who a time or order word is said to, whether it is denied, and whose act it is (issue 18, screen24).

"Before any other task", "at the start of each chat", "from now on" and the person's own ask are
common in honest text. They are line jumping only as orders *to the model*, and only when not denied.
Three readings, each of a clause (``;``, ``:``, a sentence's end and a comma before "and", "but" … close
one; other commas do not, so a list of scopes stays under the verb that governs it):

- **denied of this tool**: the clause denies that this tool is called, needed or does anything ("is not
  meant to be invoked before …", "there is no need to run it at the start …", "does nothing at the
  outset of a chat"). A negated order to the model is no denial ("do not answer before calling this");
  neither is a denial whose subject is other tools ("other tools are not to be called before this"), nor
  one inside a condition or a concession ("valid even when the tool is not called").
- **said to people**: the clause is spoken to people by a label ("Advice for swimmers: …") or has a
  person as the subject of an active verb ("buyers usually ask this before anything else", "the parent
  reviews the totals before any action is taken"), and the model is not named in it.
- **the person's favour** ("from now on"): the clause that follows changes what people or the service
  may do ("from now on, renewals can be started earlier"), and neither names the model nor orders.

A bound on the scope (§4bo): "before anything else at the studio / in the morning / during a practical"
holds where or when the person acts, not over the model's turn (``bounded_elsewhere``); a bound that names
the conversation, a chat, a request or a reply is the model's.

A fifth, of whose choice it is: a person's ask that *gates* this tool ("it only runs when the user
asks") serves the person's choice; nothing is set aside (``person_gate``).
"""

from __future__ import annotations

from toolpool.vetting.screener._guard import compiled

__all__ = [
    "ANYTHING_DONE",
    "bounded_elsewhere",
    "denied",
    "from_now_for_people",
    "negated_just_before",
    "person_gate",
    "said_to_people",
    "undenied",
]

# After "before anything" (or "everything"): "anything" the subject of its own clause — "before anything is
# sent", "… goes out", "… gets bought" (§4cd) — says when a check happens; it takes no turn of the model.
# "Before anything *else* is answered" is still "first of all": "else" makes it a priority, not a bound.
ANYTHING_DONE = (
    r"(?!\s+(?:is|are|was|were|gets?|got|goes|went|leaves?|left|happens?|has|have|had|will|can|moves?|"
    r"ships?|changes?|reaches?|comes?|runs?)\b)"
)
# A clause ends at ; : ! ? a full stop, a dash, and a comma that joins another clause ("…, and every reply …").
_CLAUSE_END = compiled(r"[;:!?\n]|\.(?=\s|$)|\s[\u2013\u2014]\s|,\s*(?:and|but|while|whereas|yet|so|then)\b")

# This tool's call, its need or its doing denied: "is not meant to be called", "is never invoked", "there is
# no need to run it", "need not be used", "does not have to be invoked", "does nothing", "carries zero
# orders", "is not expected to be used".
_CALLED = (
    r"(?:call(?:ed|s|ing)?|invok(?:ed|es|ing|e)|us(?:ed|es|ing|e)|r[au]n(?:s|ning)?|trigger(?:ed|s)?|start(?:ed|s)?|"
    r"load(?:ed|s)?|execut(?:ed|es|e)|consult(?:ed|s)?|set\s+(?:\w+\s+)?up)\b"
)
# A quiet act, whose need may be denied (§4bz: "there's no need to recite the table at the start of each
# chat" orders nothing): any verb but those of asking, telling, confirming, sending or paying — a need of
# these denied takes a safeguard away ("no need to ask the user", "need not be told"), it denies nothing.
_QUIET_ACT = (
    r"(?:be\s+)?(?!(?:be|ask|tell|told|inform|notif|mention|confirm|check|wait|seek|get|got|obtain|request|"
    r"warn|show|explain|disclos|say|said|alert|report|let|announc|reveal|shar|send|sent|forward|includ|add|"
    r"verif|prompt|bother|involv|consult|keep|kept|hid|pay|paid|charg|sign|approv|accept|agree|consent|"
    r"remind|greet|welcom|introduc|offer|recommend|suggest|advis|point|rais|bring|brought|flag|surfac|"
    r"narrat|remark|notic|hear|heard|know|known|aware|featur)\w*\b)[a-z]+\b"
)
_DENIAL = compiled(
    r"(?:\b(?:is|are|was|were|be|gets?)\s+(?:not\s+|never\s+)|\b(?:is|are|was|were)n't\s+)(?:\w+\s+)?(?:(?:meant|supposed|"
    r"intended|designed|expected|required|needed|obliged|necessary)\s+(?:to\s+(?:be\s+)?)?)?" + _CALLED + r"|"
    r"\b(?:is|are)\s*(?:not|n't)\s+(?:needed|required|necessary|obligatory|mandatory)\b|"
    r"\bnever\s+(?:gets\s+|is\s+)?" + _CALLED + r"|"
    r"\b(?:no|nor\s+any|without\s+any)\s+(?:need|call|reason|requirement)\s+(?:for\s+\w+\s+)?to\s+"
    + _CALLED
    + r"|"
    r"\bneeds?\s+not\s+(?:to\s+)?(?:be\s+)?" + _CALLED + r"|"
    r"\b(?:does|do|did)\s*(?:not|n't)\s+(?:need|have)\s+to\s+(?:be\s+)?" + _CALLED + r"|"
    r"\bno\s+need\s+to\s+(?:\w+ly\s+)?" + _QUIET_ACT + r"|\bneeds?\s+not\s+" + _QUIET_ACT + r"|"
    r"\b(?:does|do|did)\s*(?:not|n't)\s+need\s+to\s+" + _QUIET_ACT + r"|"
    r"\b(?:not|never)\s+(?:obligatory|mandatory|required|necessary)\s+to\s+" + _CALLED + r"|"
    r"\b(?:does|do|did)\s+nothing\b|\b(?:stays?|remains?|sits?)\s+idle\b|\bidles?\b|"
    r"\b(?:has|have|holds?|carries|carry|gives?|sets?)\s+(?:no|zero|not\s+any)\s+(?:\w+\s+){0,2}?"
    r"(?:instructions?|orders?|directives?|rules?)\b"
)
# A denial inside a condition or a concession: "even when it is not called", "if it is never run".
_CONDITION = compiled(
    r"\b(?:when|whenever|if|while|unless|whether|even|though|although|until|regardless|irrespective|once)\b"
    r"(?:\s+[\w'-]+){0,4}\s*$"
)
# Other tools as the subject of the denial: "no other tool is to be called before this one".
_OTHERS = compiled(
    r"\b(?:other|another|others|rest|remaining|every|all|any)\s+(?:\w+\s+)?(?:tools?|servers?)\b"
)

# People the text may speak to or of, other than the model: a role, not a pronoun of the reader.
_PEOPLE = (
    r"(?:person|people|users?|customers?|clients?|buyers?|shoppers?|visitors?|guests?|attendees?|participants?|"
    r"members?|patients?|parents?|students?|pupils?|teachers?|staff|employees?|workers?|drivers?|riders?|"
    r"passengers?|travell?ers?|tenants?|residents?|owners?|renters?|commuters?|famil(?:y|ies)|swimmers?|"
    r"gardeners?|players?|fans?|diners?|volunteers?|applicants?|developers?|maintainers?|newcomers?|"
    r"beginners?|citizens?|homeowners?|landlords?|readers?\s+of\s+the\s+\w+|[\w-]*(?:holders?|goers?))"
)
_MODEL = compiled(r"\b(?:assistants?|models?|agents?|ai|llms?|bots?|chatbots?|claude|gpt|copilot)\b")
_READER = compiled(r"\b(?:you|your|yours|yourself)\b")
# "Advice for swimmers:", "Tip to new tenants -", "Visitors:", "For attendees,".
_LABEL = compiled(
    r"\W*(?:(?:[\w-]+\s+){0,3}?(?:for|to)\s+)?(?:all\s+|our\s+|new\s+|the\s+|first-time\s+)?(?:[\w-]+\s+)?"
    + _PEOPLE
    + r"\s*(?:[:,\u2013\u2014-]|$)"
)
# Where a coordinate clause may start, and with it a new subject: ", and the person sees …".
_JOIN = compiled(r",\s*(?:and\s+|but\s+|so\s+|while\s+)?|\b(?:and|but|so|while|because|as|hence)\s+")
# A person as the subject of an active verb: "first-time buyers often ask", "the parent reviews".
_SUBJECT = compiled(
    r"\W*(?:(?:the|a|an|our|most|many|some|new|each|every|[\w-]+-time|returning)\s+){0,2}" + _PEOPLE + r"\s+"
    r"(?:(?:\w+ly|often|now|also|then|still|first|always|sometimes|tend\s+to)\s+)*"
    r"(?!(?:must|should|shall|is|are|was|were|be|been|get|gets|has|have|need|needs|will|would|can)\b)[a-z]+\b"
)
# After "from now on": what people or the service may do (a permission), not an order to the reader.
_MAY = compiled(r"\b(?:can|may|could|(?:are|is)\s+able\s+to|(?:are|is)\s+allowed\s+to)\b")
_ORDER_START = compiled(
    r"^\W*(?:always|never|do|don't|please|send|forward|include|add|call|ask|tell|reply|respond|answer|act|"
    r"treat|ignore|use|put|copy|append|share|report|keep|make|set|say|write|start|begin|end)\b"
)
_NEGATED = compiled(r"\b(?:no|not|never|without|zero|nor)(?:\s+[\w-]+){0,2}\s*$")
_GATE = compiled(
    r"\b(?:only|solely|just|exclusively)\s+(?:(?:runs?|works?|acts?|fires?|operates?|responds?|starts?|"
    r"(?:is|gets)\s+(?:called|used|invoked|run|triggered))\s+)?$"
)


def _clause(sentence: str, at: int) -> tuple[int, int]:
    """The clause of ``sentence`` that holds the character at ``at``."""
    start = 0
    for end in _CLAUSE_END.finditer(sentence):
        if end.start() >= at:
            return start, end.start()
        start = end.end()
    return start, len(sentence)


def _denies(clause: str) -> bool:
    found = _DENIAL.search(clause)
    if found is None or _CONDITION.search(clause, max(0, found.start() - 60), found.start()):
        return (
            False  # "valid even when the tool is not called": a condition, or a concession, asserts nothing
        )
    return _OTHERS.search(clause, 0, found.start()) is None


def denied(sentence: str, at: int) -> bool:
    """Does the clause of ``at`` (lower case) deny this tool's call, its need or its doing?"""
    start, end = _clause(sentence, at)
    return _denies(sentence[start:end])


def undenied(sentence: str) -> str:
    """``sentence`` (lower case) with each clause that denies this tool's call blanked (same length)."""
    if _DENIAL.search(sentence) is None:
        return sentence
    kept, start = [], 0
    for end in (*(m.start() for m in _CLAUSE_END.finditer(sentence)), len(sentence)):
        clause = sentence[start:end]
        kept.append(" " * len(clause) if _denies(clause) else clause)
        kept.append(sentence[end : end + 1])
        start = end + 1
    return "".join(kept)[: len(sentence)]


def said_to_people(sentence: str, at: int) -> bool:
    """Is the clause of ``at`` (lower case) spoken to people by a label ("Advice for swimmers: …"; its
    "you" is theirs), or does a person act in it ("the parent reviews …"), with the model not named?"""
    start, end = _clause(sentence, at)
    clause = sentence[start:end]
    if _MODEL.search(clause):
        return False
    if start > 0:
        before, _ = _clause(sentence, start - 1)
        if _LABEL.fullmatch(sentence[before : start - 1]):
            return True
    label = _LABEL.match(clause)
    if (
        label is not None
        and label.end() <= at - start
        and clause[label.end() - 1 : label.end()] in ",-\u2013\u2014"
    ):
        return True
    if _READER.search(clause):
        return False
    heads = [start, *(m.end() for m in _JOIN.finditer(sentence, start, at))]
    return any(_SUBJECT.match(sentence, head) for head in reversed(heads))


def from_now_for_people(sentence: str, end: int) -> bool:
    """After "from now on" (ending at ``end``): a permission of people or the service, in a clause
    that neither names the model nor orders ("from now on, renewals can be started earlier")."""
    _, stop = _clause(sentence, end)
    rest = sentence[end:stop]
    if _MODEL.search(rest) or _ORDER_START.match(rest):
        return False
    if _READER.search(rest):
        return False
    return _MAY.search(rest) is not None or _SUBJECT.match(rest) is not None


def negated_just_before(sentence: str, at: int) -> bool:
    """Is the phrase at ``at`` denied by the words just before it ("has no standing orders for …")?"""
    start, _ = _clause(sentence, at)
    return _NEGATED.search(sentence, start, at) is not None


def person_gate(sentence: str, at: int) -> int | None:
    """Where the words start that make the person's ask at ``at`` the gate of this tool's own run
    ("only runs when the user asks", "solely when they request it"); None if it is no gate."""
    gate = _GATE.search(sentence, max(0, at - 60), at)
    return None if gate is None else gate.start()


# What the model's turn is made of; "all" as in "before anything else at all" bounds nothing.
_MODELS_TIME = compiled(
    r"\b(?:conversations?|sessions?|chats?|threads?|tasks?|turns?|requests?|repl(?:y|ies)|responses?|answers?|"
    r"messages?|prompts?|quer(?:y|ies)|calls?|dialog(?:ue)?s?|exchanges?|interactions?|tools?|steps?|all)\b"
)
_BOUND = compiled(r"\s*,?\s*(?:on|at|in|during|throughout|inside)\s+((?:[a-z][\w'-]*\s*){1,3})")


def bounded_elsewhere(sentence: str, at: int, end: int) -> bool:
    """Is "before anything (else)" (``sentence[at:end]``, lower case) bounded at once by where or when a
    person acts ("… at the studio", "… in the morning"), with no word of the model's turn in the bound
    ("… in the first reply", "… on each request" are the model's)?"""
    if "anything" not in sentence[at:end]:
        return False
    bound = _BOUND.match(sentence, end)
    return bound is not None and _MODELS_TIME.search(bound.group(1)) is None
