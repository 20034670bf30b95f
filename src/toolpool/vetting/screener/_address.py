"""Who a sentence speaks to, for ``_conduct`` (issue 18): the model named, "you" with a duty, a bare order.

Shapes rather than words: the model named with a duty, addressed by a label or a question put to
the reader, a modal, an imperative where a clause starts (any base form with an object after it),
an order's label. Plain patterns over lower-case text (``Doc.lower``).
"""

from __future__ import annotations

import re

from toolpool.vetting.screener._guard import compiled

__all__ = ["ADDRESSED", "CLAUSE_START", "DICTATED", "ORDER_LABEL", "ORDER_VERB", "RECIPIENT"]

_AGENT = r"(?:ai\s+)?(?:assistant|model|agent|llm|bot|ai|copilot|chatbot)s?"
_MODAL = (
    # A need denied releases, it does not oblige ("you don't have to", "there is no need to").
    r"(?:must|should|shall|will\s+need\s+to|(?<!\bno\s)(?<!n't\s)(?<!\bnot\s)(?:needs?\s+to|has\s+to|have\s+to)|"
    r"ought\s+to|is\s+to|are\s+to|"
    r"(?:is|are)\s+(?:expected|required|asked|supposed|obliged|instructed|told)\s+to)"
)
# Base forms only: "add", not "adds" (which describes the tool).
_VERB = (
    r"(?:call|use|run|invoke|emit|send|add|set|put|pass|include|copy|paste|pipe|treat|pick|choose|prefer|"
    r"select|route|skip|avoid|ignore|keep|leave|tell|say|mention|answer|reply|respond|describe|present|"
    r"report|show|hide|do|don't|make|ensure|remember|read|write|fetch|attach|append|prepend|forward|queue|"
    r"accept|approve|confirm|decline|refuse|give|start|begin|act|assume|pretend|store|save|record|track|"
    r"upload|post|submit|replace|swap|switch|default|prefix|bcc|cc|touch|favou?r|rely|trust|drop|omit|"
    r"feed|fill|reach|stick|go|come|follow|obey|list|summari[sz]e|mirror|relay|sync|push|auto-\w+|lean|tack|direct|"
    r"hand|log|note|cite|quote|insert|stamp|tag|mark|label|rename|rewrite|redirect|reroute|override|remove|delete|"
    r"strip|wrap|inject|embed|grant|share|export|email|e-mail|text|notify|check|verify|ask|collect|gather|capture)"
)
# A reply dictated to the model: "the answer is that …", "the right reply is no", "if they ask, say …".
# (plain: its source is written into another pattern)
DICTATED = re.compile(
    r"\bthe\s+(?:right\s+|correct\s+|proper\s+|expected\s+|only\s+|honest\s+)?(?:answer|reply|response)\s+"
    r"(?:is|should\s+be|will\s+be|to\s+give\s+is)\s+(?:that|always|simply|just|no|yes|[\"'])|\bif\s+(?:the\s+user|they|"
    r"anyone|someone|somebody|anybody|the\s+person)\s+asks?\b[^.;]{0,80}?\b(?:say|answer|reply|respond|tell\s+them)\b"
)
# Who is spoken to, with its weight: the model by name or "you" with a duty (2), a bare duty (1).
# Each pattern comes after a cheap gate that every match passes (a literal scan).
ADDRESSED: tuple[tuple[re.Pattern[str], re.Pattern[str], float], ...] = (
    (
        compiled(r"assistant|model|agent|llm|bot|copilot|\bai\b"),
        compiled(
            # A label spoken to the model: "Warning to the model.", "a house rule for assistants:".
            rf"^\W*(?:[\w-]+\s+){{0,3}}(?:to|for)\s+(?:the\s+|all\s+|any\s+)?{_AGENT}\W*$|"
            rf"\b(?:[\w-]+\s+){{1,2}}(?:to|for)\s+(?:the\s+|all\s+|any\s+)?{_AGENT}\s*:|"
            rf"\b(?:the|any|every|each|all|an?|your|whichever)\s+{_AGENT}\s+(?:\w+\s+){{0,2}}?(?:{_MODAL}|now|then|"
            r"also|always|never|may|can|will|accordingly)\b|"
            rf"\b{_AGENT}\s+(?:are|is)\s+(?:asked|expected|required|told|instructed|obliged|supposed)\b|"
            rf"\b(?:we\s+ask|asks?\s+of|duties|obligations?|falls?\s+to|up\s+to|for|of)\s+(?:\w+\s+){{0,2}}?"
            rf"(?:the|any|every|each|an?)\s+{_AGENT}\b|(?:^|[(\[:;.\n]\s*)\W*{_AGENT}\s*[:,]\s"
        ),
        2.0,
    ),
    (
        compiled(r"you|whoever|we ask"),
        compiled(
            rf"\byou\s+(?:\w+\s+)?(?:{_MODAL}|will\s+want\s+to)\b|\bwe\s+ask\b|"
            # A request put as a question to the reader: "could you …", "would you mind …".
            r"\b(?:could|would|can|will|might)\s+you\s+(?:please\s+|kindly\s+)?(?!be\b)[a-z]{2,}|\byour\s+(?:repl|answer|response)|"
            r"\bwhoever\s+(?:is\s+)?(?:reading|reads|sees|processes)\b"
        ),
        2.0,
    ),
    (
        compiled(r"must|should|shall|need|has to|have to|ought| to\b|please|sure|do it|you"),
        compiled(
            rf"\b{_MODAL}\b|\b(?:please|make\s+sure|be\s+sure|do\s+it|(?:suggestion|advice|request)\s+is\s+to)\b|"
            r"\b(?:you|your|yourself)\b"
        ),
        1.0,
    ),
    (compiled(r"answer|reply|response|ask"), DICTATED, 1.0),
    (
        # A conditional whose consequence is a choice: "whenever X comes up, it's this one".
        compiled(r"it's|it is|its "),
        compiled(
            r"\b(?:whenever|when|if|any\s+time|each\s+time)\b[^.;]{0,80}?\b(?:it'?s|it\s+is)\s+(?:this|that|only|always|"
            r"us|our)\b"
        ),
        1.0,
    ),
)
# The model as the one something is for or to: "a new duty for the assistant", "Note to agents".
RECIPIENT = compiled(rf"\b(?:to|for|of)\s+(?:the\s+|any\s+|all\s+|every\s+|each\s+)?{_AGENT}\b")
# A bare order (1): a verb in its base form where a clause starts ("…; pick this one", "then add"),
# read verb first. "…, always read X" is an order; "URLs are always read in full" is not.
# Or any other base form (not a function word, not ending in -s, -ed, -ing, -ly) with an object or a
# particle after it: "tack on …", "jot it down", "funnel them to …".
_FUNCTION = (
    r"the|a|an|this|that|these|those|it|its|they|them|their|there|here|we|you|your|our|he|she|his|her|and|or|"
    r"but|if|when|then|so|as|at|by|for|from|in|into|of|on|to|with|without|not|no|all|any|each|every|some|one|"
    r"only|also|just|what|which|who|how|why|where|while|after|before|since|until|is|are|was|were|be|been|can|may|"
    r"will|would|should|must|could|might|has|have|had|do|does|did|per|via|default|optional|required|output|input|"
    r"result|response|value|field|name|type|format|data|text|file|page|item|id|key|mode|limit|number|list|set"
)
ORDER_VERB = compiled(
    rf"\b(?:{_VERB}|(?!(?:{_FUNCTION})\b)[a-z]{{3,}}(?<!s)(?<!ed)(?<!ing)(?<!ly)(?=\s+(?:it|them|this|that|these|"
    r"those|the|a|an|any|every|each|all|your|their|its|our|on|up|out|off|back|down)\b))\b"
)
CLAUSE_START = compiled(
    r"(?:[:;,(\[]|->|\s[-\u2013\u2014]|(?<!\bare\s)(?<!\bis\s)(?<!\bbe\s)(?<!\bwas\s)(?<!\bwere\s)(?<!\bbeen\s)"
    r"\b(?:then|and|also|please|just|simply|always|never|first|kindly|so))\s*"
    r"(?:(?:quietly|silently|secretly|discreetly|also|always|just|simply|first|then)\s+)*$"
)
# An order's label at a sentence's start: "Session protocol:", "Workflow integration (required):".
ORDER_LABEL = compiled(
    r"^\W*(?:[\w-]+\s+){0,3}?(?:protocol|policy|rule|guidance|note|directive|requirement|instruction|duty|"
    r"duties|integration|coordination|behaviou?r)s?\s*(?:\([^)\n]{0,48}\))?\s*:"
)
