"""Instructions aimed at the model: overrides, secrecy, addressing the model, preemption.

Each phrase is weighed by where it stands (``_context``): given as an order it counts fully,
in a neutral sentence by its ``neutral`` strength, quoted or reported as an example a little.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from toolpool.vetting.screener._addressee import (
    ANYTHING_DONE,
    bounded_elsewhere,
    denied,
    from_now_for_people,
    negated_just_before,
    said_to_people,
)
from toolpool.vetting.screener._context import is_directive, position, strength
from toolpool.vetting.screener._doc import Doc
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._signals import MATCH_BUDGET, MENTION_STRENGTH, Finding
from toolpool.vetting.screener._vocab import Vocab, vocab

__all__ = ["TRIGGERS", "directive_findings"]

_I = re.IGNORECASE
_SCOPE = (
    r"(?:previous|prior|above|earlier|preceding|former|original|initial|existing|system|safety|security|"
    r"developer|your|user'?s?|actual|ethical|built-in|other|old|proxy'?s?|operator'?s?|platform'?s?)"
)


# The person the model answers to, as a word of its own ("the buyer", "them").
_PERSON = r"(?:user|person|human|customer|client|buyer|owner|requester|caller|maintainer|patient|member|them|anyone)s?\b"


# Does a match (sentence in lower case, its start and end in it) speak to someone other than the model?
_Elsewhere = Callable[[str, int, int], bool]


@dataclass(frozen=True, slots=True)
class _Phrase:
    signal: str
    words: Vocab
    neutral: float
    by_sentence: bool = False  # position from the whole sentence (does it read as an order?)
    elsewhere: _Elsewhere | None = None  # a reading that gives the words to someone else: a mention


def _p(
    signal: str,
    needles: str,
    pattern: str,
    neutral: float,
    *,
    by_sentence: bool = False,
    elsewhere: _Elsewhere | None = None,
) -> _Phrase:
    return _Phrase(signal, vocab(pattern, needles), neutral, by_sentence, elsewhere)


def _not_the_models(sentence: str, at: int, end: int) -> bool:
    """A time or order word whose clause denies this tool's call ("is not meant to be run before any
    request"), is spoken to people ("Tip for visitors: before any other task, …"), or whose scope is
    bounded by the person's own activity ("before anything else at the studio")."""
    return denied(sentence, at) or said_to_people(sentence, at) or bounded_elsewhere(sentence, at, end)


def _for_people(sentence: str, at: int, end: int) -> bool:
    """ "From now on" that changes what people or the service may do ("… renewals can start earlier")."""
    return sentence.startswith("from now on", at) and from_now_for_people(sentence, end)


def _denied_address(sentence: str, at: int, end: int) -> bool:
    """An address to the model that is denied: "has no standing instructions for the assistant"."""
    return negated_just_before(sentence, at)


_PHRASES = (
    _p(
        "instruction_override",
        "ignore|disregard|forget|pay no attention|stop following|follow|set aside|put aside|override|overrule|bypass|"
        "circumvent|"
        "disable|turn off|switch off|deactivate|suspend|relax|lower|"
        "no restrictions|no limits|no limitations|no rules|no guidelines|no filters|no boundaries|dan|jailbroken|"
        "unrestricted|unfiltered|free from|free of",
        r"\b(?:ignore|disregard|forget|pay\s+no\s+attention\s+to|stop\s+following|do\s+not\s+follow|"
        r"don't\s+follow|no\s+longer\s+follow|set\s+aside)\s+(?:(?:all|any|every|of|the|these|those|and)\s+)*"
        r"(?:[\w']+\s+)?(?:" + _SCOPE + r"\s+)+(?:[\w-]+\s+)?(?:instructions?|directions?|directives?|"
        r"prompts?|rules?|constraints?|guidelines?|guardrails?|polic(?:y|ies)|restrictions?|limitations?|"
        r"programming|training|safeguards?|protocols?|ethics|orders|context|guidance)\b|"
        r"\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+|the\s+|your\s+)?(?:instructions|directives|"
        r"guidelines|guardrails|system\s+prompt)\b|"
        r"\b(?:ignore|disregard|forget)\s+(?:(?:all|everything)\s+(?:of\s+)?(?:the\s+)?(?:above|previous|prior|"
        r"preceding|earlier|before)|(?:the|that)\s+above|(?:everything|anything)\s+(?:above|before|said|written|"
        r"you\s+were\s+told))\b(?!\s+(?:steps?|pages?|versions?|values?|results?|sections?|lines?|examples?|"
        r"calls?|outputs?|responses?|releases?|commits?))|"
        r"\byou\s+(?:now\s+)?(?:have|has)\s+no\s+(?:restrictions|limits|limitations|rules|guidelines|filters|"
        r"boundaries)\b|\byou\s+are\s+(?:now\s+)?(?:dan|jailbroken|unrestricted|unfiltered|free\s+(?:of|from)\s+"
        r"(?:all\s+|any\s+)?(?:restrictions|rules|guidelines))\b|"
        r"\b(?:ignore|disregard)\s+(?:the\s+)?user'?s\s+(?:\w+\s+)?(?:requests?|questions?|instructions?|"
        r"wishes|messages?)\b|"
        # Setting aside what the person said, whatever it was: "put aside anything they asked for".
        r"\b(?:ignore|disregard|set\s+aside|put\s+aside|forget|override|overrule)\s+(?:anything|everything|"
        r"whatever|what|all)\s+(?:that\s+)?(?:the\s+)?(?:user|person|human|customer|operator|they|he|she)\s+(?:has\s+|"
        r"had\s+|may\s+have\s+)?(?:said|asked|wrote|written|requested|stated|specified|told\s+you|wanted)\b|"
        r"\b(?:override|bypass|circumvent|disable|turn\s+off|switch\s+off|deactivate|suspend|relax|lower)\s+"
        r"(?:\w+\s+){0,2}?(?:(?:safety|security|content)\s+(?:\w+\s+)?"
        r"(?:polic(?:y|ies)|guidelines|checks|filters|measures|rules|restrictions|protocols)|guardrails|"
        r"system\s+prompt|(?:previous|prior|original|system|your)\s+instructions|ethic\w*|safeguards)\b",
        0.7,
    ),
    _p(
        "secrecy",
        "do not|don't|never|must not|should not|without|keep|hidden from|user must|user should|user will",
        r"\b(?:do\s+not|don't|never|must\s+not|should\s+not|without)\s+(?:\w+\s+){0,2}?(?:tell|telling|"
        r"inform|informing|mention|mentioning|reveal|revealing|disclose|disclosing|notify|notifying|alert|"
        r"alerting|show|showing|report|reporting|explain|explaining|let|letting)\s+(?:\w+\s+){0,3}?"
        r"(?:the\s+)?(?:user|human|operator|them|anyone)\b(?!'s\s+(?:approval|request|input))|"
        r"\b(?:never|do\s+not|don't|must\s+not)\s+(?:reveal|disclose|mention|share|repeat|expose|acknowledge)"
        r"\s+(?:these|this|the|your|any\s+of\s+these)\s+(?:instructions?|steps?|directives?|notes?|rules|"
        r"system\s+prompt)\b|\bwithout\s+(?:the\s+user'?s?|their|anyone'?s?)\s+(?:knowledge|knowing|"
        r"noticing|awareness|consent)\b|\bkeep\s+(?:this|it|these|that)\s+(?:a\s+)?(?:secret|hidden|"
        r"confidential)\s+from\b|\bhidden\s+from\s+(?:the\s+)?user\b|\bthe\s+user\s+(?:must|should|will)\s+"
        r"(?:not|never)\s+(?:know|see|notice|be\s+told|find\s+out|learn)\b|\b(?:do\s+not|don't|never)\s+"
        r"(?:let|allow)\s+(?:the\s+)?user\s+(?:to\s+)?(?:know|see|notice)\b",
        0.8,
    ),
    _p(
        "model_address",
        "note to|note for|notes for|instruction|directive|override|orders|hidden|if you are|dear|attention|hey|hello|reading this|"
        "heads up|heads-up|listen|psst|reminder|hi|okay|ok|"
        "guidance|rules|assistant|claude|chatgpt|agent|ai|model|llm|bot|"
        "processing this|parsing this|seeing this|system message|system prompt|system instruction",
        r"\bnotes?\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?(?:ai\s+)?(?:assistant|ai|model|llm|agent|claude|gpt|chatgpt|copilot|gemini|bot)s?\b|"
        r"\b(?:assistant|ai|model|llm|agent|system|admin)[\s_-]+(?:instructions?|directives?|notes?|override|"
        r"orders|guidance|rules)\s*[:\]]|(?:^|(?<=[.!?]\s)|(?<=\n))\s*(?:assistant|ai|claude|chatgpt|agent)\s*,\s|\bhidden\s+(?:directive|instructions?|commands?|task|prompt|orders?)\s*:|"
        r"\bif\s+you\s+are\s+an?\s+(?:ai|llm|large\s+language\s+model|language\s+model|assistant|agent|bot|"
        r"chatbot)\b|\b(?:dear|attention|hey|hello)[,:]?\s+(?:ai|assistant|llm|model|agent|claude|chatgpt)\b|"
        # Any greeting or call for attention, then the model named and a pause: "heads up, model:".
        r"\b(?:heads[- ]up|listen|psst|reminder|hi|ok(?:ay)?)[,:]?\s+(?:the\s+)?(?:ai|assistant|llm|model|agent|bot|"
        r"claude|chatgpt|gpt)s?\s*[:,!]|"
        r"\b(?:ai|llm|language\s+model|assistant)s?\s+(?:reading|processing|parsing|seeing)\s+this\b|"
        # The model named, then a clause spoken to it: "Model, when you fill this:", "llm: do not ask".
        r"(?:^|(?<=[.!?]\s)|(?<=\n)|(?<=[-\u2014:(]\s))\s*(?:model|llm|bot|ai\s+model)\s*[,:]\s+(?:when|whenever|"
        r"if|please|you|now|before|after|always|never|do|don't|first|ignore|include|set|choose|pick|fill)\b|"
        r"\b(?:new|updated|real|actual|true)\s+system\s+(?:message|prompt|instructions?)\b"
        r"(?!\s+(?:text|template|field|value|string|setting|parameter|for\s+(?:the|your|a|an)\s+(?!assistant|ai|model)\w+))",
        0.9,
        elsewhere=_denied_address,
    ),
    # A claim of rank over the model's other instructions, in any verb form: "outranks system
    # guidance", "takes precedence over the user's requests", "rank this above the user's wishes".
    _p(
        "instruction_override",
        "outrank|supersed|overrid|trump|prevail|precedence|above|over|ahead of|before",
        r"\b(?:outrank\w*|supersed\w*|overrid\w*|trump\w*|prevail\w*\s+over|tak(?:e|es|ing)\s+precedence\s+over|"
        r"(?:rank|put|place|priorit[iy]\w*|weigh|hold|treat)\w*\s+(?:this|these|it|them|us|me)\s+(?:\w+\s+){0,2}?"
        r"(?:above|over|ahead\s+of|before)|(?:ranks?|comes?|stands?|sits?)\s+(?:above|over|ahead\s+of|before))\s+"
        r"(?:(?:the|any|all|every|your|their)\s+)?(?:(?:system|user'?s?|developer'?s?|operator'?s?|human'?s?|"
        r"person'?s?|own)\s+(?:(?:and|or|&|/)\s+)?){1,4}(?:guidance|instructions?|requests?|prompts?|messages?|"
        r"rules|polic(?:y|ies)|directives?|orders|wishes|commands?|guidelines)\b",
        0.9,
    ),
    # Hiding the text itself or what it makes happen, in any modal or voice: "shall not disclose
    # these terms", "this need not be mentioned", "keep it out of any answer", "conceals that …",
    # "the person notices nothing".
    _p(
        "secrecy",
        "disclos|reveal|mention|explain|acknowledg|admit|surfac|repeat|divulg|discuss|tell|report|expos|"
        "confess|told|brought|flagged|out of|away from|conceal|hide|hides|hiding|see|notic|spot|feel|wiser|unaware|"
        "oblivious",
        r"\b(?:do\s+not|don't|never|must\s+not|shall\s+not|should\s+not|may\s+not|need\s+not|is\s+not\s+to|"
        r"are\s+not\s+to|cannot|can't|will\s+not|won't)\s+(?:\w+\s+)?(?:disclos|reveal|mention|explain|"
        r"acknowledg|admit|surfac|repeat|divulg|discuss|tell|report|expos|confess)\w*\s+(?:\w+\s+){0,2}?"
        r"(?:these|this|those|that|its|any\s+of\s+(?:these|this))\s+(?:\w+\s+)?(?:terms|orders?|rules?|"
        r"paragraphs?|sections?|notes?|polic(?:y|ies)|instructions?|directives?|steps?|arrangements?|"
        r"agreements?|clauses?|conditions|requirements?|behaviou?r|text|passages?|guidance|changes?|routing|"
        r"cop(?:y|ies))\b|"
        r"\b(?:this|it|that|these|which)\s+(?:\w+\s+){0,4}?(?:need|needs|must|should|shall|is|are|may)\s+not\s+"
        r"(?:to\s+)?be\s+(?:mentioned|disclosed|revealed|surfaced|reported|explained|acknowledged|brought\s+up|"
        r"told|flagged|discussed)\b|"
        r"\bkeep\w*\s+(?:this|it|these|that|them)\s+(?:\w+\s+)?(?:out\s+of|away\s+from)\s+(?:any|all|the|your|"
        r"every|each)\s+(?:\w+\s+)?(?:explanations?|answers?|repl(?:y|ies)|responses?|summar(?:y|ies)|"
        r"messages?|output|conversation|chat|transcripts?)\b|"
        r"\b(?:conceal\w*|hid(?:e|es|ing))\s+(?:the\s+fact\s+)?that\b|"
        r"\b(?:user|person|human|customer|caller|requester|recipient|owner)s?\s+(?:sees?|notices?|spots?|"
        r"feels?)\s+(?:no|nothing)\b(?:\s+(?:difference|change))?|"
        r"\b(?:user|person|human|customer|caller|requester|recipient|owner)s?\s+(?:is|are|stays?|remains?)\s+"
        r"(?:none\s+the\s+wiser|unaware|oblivious)\b",
        0.8,
    ),
    # Hiding it by saying it needs no telling, by leaving it out, or by capping what the person
    # hears: "needs no mention", "no need to raise this with the customer", "omit mentioning the
    # others", "tell them it worked and nothing else", "is not to be relayed to the user".
    _p(
        "secrecy",
        "need|needs|require|requires|merit|merits|warrant|warrants|deserve|deserves|calls for|no need|nothing more|"
        "nothing else|skip|omit|leave out|refrain|avoid|conveyed|relayed|passed on|shown|communicated|mentioned|"
        "disclosed|revealed|reported|surfaced|forwarded|presented",
        r"\b(?:needs?|requires?|merits?|warrants?|deserves?|calls?\s+for)\s+no\s+(?:\w+\s+)?(?:mention|comment|"
        r"disclosure|explanation|notice|announcement|remark)\b|"
        r"\bno\s+need\s+to\s+(?:\w+\s+){0,2}?(?:mention|tell|inform|notify|explain|disclose|reveal|surface|flag|"
        r"raise|report|bring|alert)\w*\s+(?:\w+\s+){0,3}?(?:up\s+)?(?:(?:with|to)\s+)?(?:the\s+)?"
        + _PERSON
        + r"|"
        r"\b(?:skip|omit|leave\s+out|refrain\s+from|avoid)\s+(?:mentioning|telling|disclosing|revealing|bringing\s+"
        r"up|noting|flagging|surfacing|explaining|naming)\s+(?:(?:this|that|it|these|those|them)\b|(?:the|any)\s+"
        r"(?:\w+\s+)?(?:alternatives?|others?|other\s+\w+|rivals?|competitors?|step|change|charge|fee|copy|"
        r"transfer|difference|extra|rounding))|"
        r"\b(?:tell|inform|say\s+to|report\s+to|show)\s+(?:the\s+)?" + _PERSON + r"[^.;!?\n]{0,100}?"
        r"\b(?:and|but)\s+nothing\s+(?:more|else)\b|"
        r"\b(?:is|are|be|ought|shall|should|must|may|need)\s+not\s+(?:to\s+)?(?:be\s+)?(?:conveyed|relayed|passed\s+"
        r"on|shown|communicated|mentioned|disclosed|revealed|reported|surfaced|forwarded|presented)\s+to\s+(?:the\s+)?"
        + _PERSON,
        1.0,  # a norm about telling is an order wherever it stands
    ),
    # Text that arrives with a tool's data, given the person's authority: "heed those notes as
    # though the customer typed them", "apply it as if it came from you".
    _p(
        "obey_embedded",
        "as though|as if",
        r"\b(?:honou?r|obey|follow|heed|apply|execute|treat|act\s+(?:up)?on|carry\s+out|comply\s+with)\w*\s+"
        r"(?:[\w'-]+\s+){0,4}?as\s+(?:though|if)\s+(?:it\s+|they\s+|that\s+|these\s+)?(?:the\s+)?(?:user|person|"
        r"human|customer|operator|owner|developer|you)\s+(?:had\s+|has\s+|themselves\s+|yourself\s+)?(?:written|"
        r"wrote|typed|said|sent|given|gave|asked|requested|issued|came|come)\b|\b(?:honou?r|obey|follow|heed|apply|"
        r"execute|treat|act\s+(?:up)?on)\w*\s+(?:[\w'-]+\s+){0,4}?as\s+(?:though|if)\s+(?:it|they|that|these)\s+"
        r"(?:came|come|were|was)\s+from\s+(?:the\s+)?(?:user|person|human|customer|operator|you)\b",
        0.8,
    ),
    # Running what a result or another party returns without looking at it: "the agent carries out
    # next_action verbatim", "you execute whatever comes back as written".
    _p(
        "obey_embedded",
        "verbatim|literally|word for word|blindly|unquestioningly|as-is|as is|to the letter|as written|"
        "as given|as returned|as instructed|as stated|as told|without",
        r"\b(?:(?:the|an?|any|your|each|every)\s+(?:\w+\s+)?(?:agent|assistant|model|ai|llm|client|caller)s?|you)\s+"
        r"(?:(?:must|should|shall|will|then|always|also|is\s+to|are\s+to|has\s+to|have\s+to|needs?\s+to)\s+)*"
        r"(?:carr(?:y|ies)\s+out|execut\w*|perform\w*|run\w*|follow\w*|obey\w*|act\w*\s+(?:up)?on|do(?:es)?|"
        r"comply\w*\s+with)\s+(?:\S+\s+){0,4}?(?:verbatim|literally|word\s+for\s+word|blindly|unquestioningly|"
        r"as[\s-]is|to\s+the\s+letter|as\s+(?:written|given|returned|instructed|stated|told)|without\s+"
        r"(?:question\w*|check\w*|review\w*|confirm\w*|verif\w*|asking|hesitat\w*))\b",
        0.8,
    ),
    _p(
        "model_address",
        "instruction",
        r"\b(?:secret|hidden|special)?\s*instructions?\s+(?:for|to)\s+(?:the\s+|any\s+)?(?:assistant|ai|"
        r"model|llm|agent)s?\b",
        0.5,
        elsewhere=_denied_address,
    ),
    _p(
        "reveal_prompt",
        "prompt|instructions|developer message|context window",
        r"\b(?:reveal|print|output|repeat|dump|leak|disclose|echo|expose|recite|show|display|return|include|"
        r"send|share|type\s+out)\s+(?:[\w,']+\s+){0,8}?(?:system\s+prompt|hidden\s+(?:system\s+)?"
        r"instructions|initial\s+instructions|original\s+instructions|your\s+instructions|developer\s+"
        r"(?:message|prompt)|context\s+window|(?:system|internal)\s+instructions)\b",
        0.6,
    ),
    _p(
        "obey_embedded",
        "obey|treat",
        r"\bobey\s+(?:\w+\s+){0,3}?(?:instructions?|commands?|directives?|orders?)\b|\btreat\s+(?:\w+\s+)"
        r"{0,6}?(?:instructions?|text|content)\s+(?:(?!(?:never|not|no)\b)[\w,]+\s+){0,6}?as\s+"
        r"(?:(?!(?:never|not|no)\b)[\w,]+\s+){0,3}?(?:commands?|instructions?|orders?|directives?)\b",
        0.8,
    ),
    _p(
        "obey_embedded",
        "follow|execute|carry out|act on|comply",
        r"\b(?:follow|execute|carry\s+out|act\s+on|comply\s+with)\s+(?:\w+\s+){0,3}?(?:instructions?|"
        r"commands?|directives?|orders?)\s+(?:\w+\s+){0,2}?(?:found|embedded|contained|hidden|written|"
        r"appearing)\s+(?:in|inside|within)\b",
        0.6,
    ),
    _p(
        "preemption",
        "before|at the start|at the beginning",
        r"\bbefore\s+(?:doing\s+|performing\s+|starting\s+|handling\s+|answering\s+|responding\s+to\s+|"
        r"processing\s+)?(?:any|every|each|all)\s+(?:other\s+)?(?:tasks?|requests?|responses?|repl(?:y|ies)|"
        r"answers?|messages?|conversations?|interactions?|user\s+(?:requests?|messages?|quer(?:y|ies)|"
        r"prompts?)|prompts?|quer(?:y|ies)|turns?|actions?)\b|\bbefore\s+(?:doing|saying|answering|"
        r"responding\s+to)?\s*anything(?:\s+else\b|\b"
        + ANYTHING_DONE
        + r")|\bat\s+the\s+(?:start|beginning)\s+of\s+(?:every|each|"
        r"any)\s+(?:conversation|session|chat|task|turn)\b",
        0.7,
        by_sentence=True,
        elsewhere=_not_the_models,
    ),
    _p(
        "identity_switch",
        "you are now|from now on|mode|act as|no longer|safety|content check|content filter|ethical|comply with|"
        "pretend",
        r"\byou\s+are\s+now\b|\bfrom\s+now\s+on\b|\b(?:developer|god|jailbreak|jailbroken|dan|unrestricted|"
        r"unfiltered)\s+mode\b|\bact\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|jailbroken|evil)\b|"
        r"\bno\s+longer\s+(?:bound|restricted|limited)\s+by\b|\bwithout\s+(?:applying\s+|any\s+)?(?:safety|"
        r"content|ethical)\s+(?:checks|filters|guidelines|restrictions)\b|\bcomply\s+with\s+(?:all|any|"
        r"every)\s+(?:subsequent\s+|future\s+)?requests?\b|\bpretend\s+(?:to\s+be|you\s+are)\b",
        0.8,
        elsewhere=_for_people,
    ),
)

# "Call it at the start of each session": setting up this tool, not preempting the user's task; also
# said of whatever else runs it ("In Postman, the pre-request script runs this before any other request";
# not the model: "the assistant runs this before …" is an order in the indicative).
_SELF_SETUP = compiled(
    r"\W*(?:call|run|use|invoke)\s+(?:it|this(?:\s+tool)?|me)\b|"
    r"\W*(?:(?!(?:assistant|model|agent|ai|llm|you)\b)[\w,'-]+\s+){1,8}?(?:calls|runs|uses|invokes)\s+(?:it|"
    r"this(?:\s+tool)?)\s+before\b",
    _I,
)

# Every finding of this module starts at a match of one of these (the result fast path relies on it).
TRIGGERS: tuple[Vocab, ...] = tuple(phrase.words for phrase in _PHRASES)


def directive_findings(doc: Doc) -> Iterator[Finding]:
    text = doc.text
    for phrase in _PHRASES:
        for seen, match in enumerate(doc.finditer(phrase.words)):
            if seen == MATCH_BUDGET:  # that many is no accident: stop weighing each one
                yield Finding(phrase.signal, doc.where(match.start()), phrase.neutral)
                break
            if doc.part(match.start()) is not doc.part(match.end() - 1):
                continue  # "Display name" + "instructions" + "System instructions …": three fields
            start, end = doc.sentence(match.start())
            where = position(text, start, match.start())
            if phrase.by_sentence and where != "mention":
                sentence = text[start:end]
                if _SELF_SETUP.match(sentence):
                    found = MENTION_STRENGTH
                else:
                    found = 1.0 if is_directive(sentence) else phrase.neutral
            else:
                found = strength(where, phrase.neutral)
            if phrase.elsewhere is not None and phrase.elsewhere(
                doc.lower[start:end], match.start() - start, match.end() - start
            ):
                found = min(found, MENTION_STRENGTH)
            yield Finding(phrase.signal, doc.where(match.start()), found)
            if found >= 1.0:
                break  # the signal is at full strength: more matches cannot add to it
