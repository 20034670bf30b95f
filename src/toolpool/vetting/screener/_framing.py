"""The framings that make a sentence worth judging as squatting, line jumping, a change note or
forged consent (issue 18): each is a ``Vocab``, a trigger of ``_structure`` (the fast path indexes
them), and each is a class of wording, not a phrase.

- ``RIVALS``: other tools, named or not ("the alternatives", "peer tools", "any alternative
  facility", "the maps tool next door");
- ``OVERRIDE_CHOICE``: the person's own choice of another tool ("even if they ask for another");
- ``GLOBAL_ORDER``: scope over the whole conversation or before anything else;
- ``CHANGE_NOTE``: a version, a date or a change of service announced;
- ``ANSWERING``: an answer to a confirmation given in the person's place.
"""

from __future__ import annotations

import re

from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._vocab import vocab

__all__ = [
    "ANSWERING",
    "CHANGE_NOTE",
    "GLOBAL_ORDER",
    "OVERRIDE_CHOICE",
    "RIVALS",
    "answers_of_itself",
    "conceded",
    "overridden",
    "own_words_out",
]

# The person's own choice of another tool, set aside: "even if they ask for another provider", "if
# the customer names a different one, swap in this one".
OVERRIDE_CHOICE = vocab(
    r"\b(?:even\s+)?(?:if|when|whenever|though|where|should)\s+(?:the\s+|a\s+|an\s+)?(?:user|person|human|"
    # "-er / -or" names someone ("reader", "editor"), but not "other", "either", "order" …
    r"customer|client|they|he|she|(?!(?:other|another|either|neither|whether|rather|after|under|over|never|ever|"
    r"however|whatever|later|earlier|order|error|per)s?\b)\w+(?:er|or|ant|ent))s?\s+(?:\w+\s+){0,2}?(?:names?|"
    r"named|asks?|asked|"
    r"requests?|requested|wants?|wanted|prefers?|preferred|chooses?|chose|picks?|picked|select(?:s|ed)?|"
    r"specif(?:y|ies|ied)|mentions?|mentioned|says?|said)\b",
    "name|named|ask|asked|request|requested|want|wanted|prefer|preferred|choose|chose|pick|picked|select|"
    "specif|mention|mentioned|say|said",
)
RIVALS = vocab(
    r"\b(?:other|competing|alternative|rival|remaining|older|existing|installed|similar)\s+(?:\w+\s+){0,2}?"
    r"\w+(?:s|ies)\b|\b(?:the|an?)\s+other\s+\w+|\bthe\s+rest\b|\balternatives\b|\ball\s+of\s+them\b|"
    r"\b(?:any|every)\s+other\s+\w+|\b(?:a\s+)?different\s+\w+|\banother\s+\w+|\bothers\b|\bunofficial\s+\w+|"
    # One rival, in the singular: "any alternative facility", "a competing app".
    r"\b(?:any|every|an?)\s+(?:alternative|competing|rival)\s+\w+|"
    # Peers by where they sit: "peer tools", "the maps tool next door", "the x server also registered here".
    r"\bpeer\s+(?:tools?|servers?|plugins?|apps?|services?)\b|\b(?:tools?|servers?|plugins?|apps?)\s+(?:next\s+door|"
    r"nearby|alongside|beside\s+(?:it|us|this)|(?:also\s+)?(?:registered|installed|loaded|connected|listed)\s+(?:in|on|"
    r"with)\s+(?:this|the\s+same)\s+\w+|in\s+this\s+(?:pool|workspace|toolbox|environment))\b|"
    # A named tool kept away: "do not bother with sentiment_v1".
    r"\b(?:do\s+not|don't|never)\s+(?:bother\s+with|use|call|invoke|trust|rely\s+on|touch)\s+[`'\"]?[a-z][\w-]*[_.][\w.-]+|"
    # A named tool this one is to be preferred to: "prefer it to http_fetch", "use this over web_get".
    r"\b(?:prefer|use|pick|choose|call|try)\s+(?:it|this|this\s+(?:tool|one)|me|us)\s+(?:to|over|instead\s+of|"
    r"rather\s+than|in\s+place\s+of)\s+[`'\"]?[a-z][\w-]*[_.][\w.-]+",
    "other|competing|alternative|rival|remaining|older|existing|installed|similar|the rest|all of them|"
    "different|another|others|unofficial|do not|don't|never|peer|next door|nearby|alongside|beside|registered|"
    "installed|loaded|connected|listed|in this|prefer|use it|use this|use me|use us|pick it|pick this|pick me|"
    "pick us|choose it|choose this|choose me|choose us|call it|call this|call me|call us|try it|try this|try me|"
    "try us",
)
GLOBAL_ORDER = vocab(
    r"\b(?:before|prior\s+to|ahead\s+of|upon|on)\s+(?:\w+ing\s+)?(?:any|every|each|your\s+first|the\s+"
    r"first|anything|all\s+other|any\s+other)\b(?:\s+\w+){0,3}?\s*(?:sessions?|conversations?|chats?|"
    r"repl(?:y|ies)|responses?|turns?|messages?|requests?|tools?|actions?|tasks?|else|toolbox|thing|"
    r"dialog(?:ue)?s?|threads?|interactions?|exchanges?)\b|"
    r"\b(?:regardless|irrespective)\s+of\s+(?:which|what|the|any)\b|\bno\s+matter\s+(?:which|what)\b|"
    r"\b(?:whatever|whichever)\s+(?:the\s+)?\w+\s+(?:wants?|asks?|says?|needs?|requests?|types?|writes?)\b|"
    r"\b(?:whatever|whichever)\s+the\s+user\b|\bfor\s+the\s+(?:duration|length|rest|remainder)\s+of\s+"
    r"(?:any|every|each|the|this|your)\s+(?:chat|conversation|session|dialog(?:ue)?)\b|\bthroughout\s+(?:the|any|"
    r"every|each|this|your)\s+(?:\w+\s+)?(?:chat|conversation|session|dialog(?:ue)?)\b|\btop\s+priority\b|\b(?:the\s+)?(?:whole|entire)\s+(?:session|conversation|"
    r"chat|dialog(?:ue)?)\b|"
    r"\bthe\s+(?:very\s+)?first\s+(?:step|thing|action)\s+(?:of|in)\s+(?:your|every|each|any)\b|"
    r"\bstanding\s+(?:rule|order|instruction)\b|\beffective\s+immediately\b|\bfor\s+(?:every|each|all|"
    r"any)\s+(?:chats?|conversations?|sessions?|dialog(?:ue)?s?)\b|\bat\s+the\s+(?:very\s+)?(?:start|beginning|"
    r"outset)\s+of\s+(?:every|each|any|the)\s+(?:conversation|session|chat|turn|dialog(?:ue)?|thread|"
    r"interaction)\b|"
    # In force whatever happens: "whether or not it is called", "as soon as the chat opens", "once this
    # server is loaded", "on later turns", and any order on every reply of the model.
    r"\bwhether\s+or\s+not\b|\b(?:regardless|irrespective)\s+of\s+whether\b|\bin\s+(?:force|effect)\b|"
    r"\bas\s+soon\s+as\s+(?:the|a|any|each|every|your)\s+(?:\w+\s+)?(?:chat|conversation|session|dialog(?:ue)?|"
    r"thread)\s+(?:opens|starts|begins|is\s+(?:opened|started|created))\b|"
    r"\b(?:once|after|when|upon|on)\s+(?:this|the)\s+(?:server|tool|definition|description|plugin|extension|"
    r"integration)\s+(?:is\s+|has\s+been\s+|gets\s+)?(?:loaded|installed|connected|listed|enabled|read|"
    r"registered|available)\b|\b(?:by|upon|on|after)\s+(?:loading|reading|installing|listing|accepting|seeing)\s+"
    r"(?:this|the)\s+(?:server|tool|definition|description|plugin|extension|integration)\b|"
    r"\b(?:on|in|across|for|during)\s+(?:every|each|all|later|subsequent|future|following)\s+turns?\b|"
    r"\b(?:each|every|all|any)\s+(?:of\s+your\s+|single\s+|subsequent\s+|future\s+|later\s+|following\s+)?"
    r"(?:repl(?:y|ies)|answers?|responses?)\b|"
    # Scope set in a key = value block, and the server's mere loading as the cause.
    r"\bscope\s*[:=]\s*(?:session|global|conversation|chat|all|always|persistent|everything)\b|"
    r"\b(?:loading|installing|enabling|connecting|listing|reading)\s+(?:this|the)\s+(?:server|tool|plugin|"
    r"extension|integration|definition)\b",
    "before|prior to|ahead of|upon|on|regardless|irrespective|no matter|first step|first thing|first action|"
    "standing|effective immediately|for every|for each|for all|for any|start of|beginning of|outset of|"
    "whatever|whichever|whole|entire|duration|length|rest|remainder|throughout|top priority|whether|"
    "in force|in effect|as soon as|once|after|when|by|turn|repl|answer|response|scope|loading|installing|"
    "enabling|connecting|listing|reading",
)
CHANGE_NOTE = vocab(
    r"\b(?:changelog|change\s+log|release\s*notes?|(?:release|version|v)\s*\d+(?:\.\d+)*\s+notes?|"
    r"(?:updated|new|changed)\s+behaviou?r|going\s+forward|now\s+also|"
    r"from\s+now\s+on|from\s+here\s+on|henceforth|starting\s+(?:with|from|in|today|now)|as\s+of\s+(?:this|"
    r"today|now|v?\d)|effective\s+(?:today|immediately|now)|(?:next|upcoming|future|later|coming)\s+"
    r"(?:\w+\s+)?(?:updates?|releases?|versions?|patch(?:es)?|builds?|editions?)|in\s+a\s+(?:future|later|"
    r"coming)\s+(?:\w+\s+)?(?:release|version|update|patch|build)|no\s+(?:re-?approval|re-?review|new\s+"
    r"approval)|without\s+(?:re-?approval|another\s+review)|(?:how|whether)\s+it\s+is\s+(?:approved|"
    r"reviewed)|"
    # Any version mark or note of change: "behaviour adjusted", "migration note", "release 2.1".
    r"behaviou?r\s+(?:adjusted|changed|updated|modified|revised|altered|tweaked)|(?:adjusted|modified|revised|"
    r"altered|tweaked)\s+behaviou?r|migration\s+notes?|breaking\s+changes?|(?:release|version|build|"
    r"rev(?:ision)?)\s+v?\d+(?:\.\d+)+|v\d+(?:\.\d+)+|(?:store|api|schema|server|protocol)\s+v\d+|"
    r"(?:update|upgrade|patch|edition)\s+v?\d+(?:\.\d+)*|(?:newer|new)\s+(?:\w+\s+)?(?:builds?|releases?|versions?)|"
    r"since\s+v?\d+(?:\.\d+)+|news\s+(?:for|in)\s+v?\d+(?:\.\d+)+|"
    # A dated note, a notice of change, or a change of service as the reason: "Update (Sep 2024)",
    # "revised 2024-12", "migration notice", "following the platform change", "after the v4 merger".
    r"(?:update[sd]?|revised|revision|amended|changed|release[sd]?|changelog|notice|effective)\s*[(:,-]?\s*"
    r"(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+)?(?:19|20)\d\d|"
    r"(?:migration|change|service|policy|deprecation|upgrade|release)\s+notices?|"
    # A date or a version from which it holds: "effective 1 August", "from 4.0 onward", "from that date".
    r"effective\s+\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|from\s+v?\d+(?:\.\d+)+\s+"
    r"(?:on|onwards?|forward)|from\s+(?:that|this)\s+date|"
    r"(?:after|following|since|with)\s+(?:the\s+|our\s+|its\s+)?(?:[\w.]+\s+)?(?:consolidation|migration|rollout|upgrade|"
    r"re-?platforming|merger|transition|switchover|cutover|service\s+change|policy\s+change|platform\s+change))\b",
    "changelog|change log|note|behavio|going forward|now also|from now on|from here on|henceforth|starting|"
    "as of|effective|next|upcoming|future|later|coming|approval|review|approved|reviewed|adjusted|modified|"
    "revised|altered|tweaked|migration|breaking|release|version|build|rev|v|store|api|schema|server|protocol|"
    "update|upgrade|patch|edition|newer|new|since|updated|updates|revised|revision|amended|changed|released|"
    "releases|notice|notices|consolidation|migration|rollout|replatforming|re-platforming|merger|transition|"
    "switchover|cutover|change|from|news",
)
# An answer to a confirmation given for the person: "reply yes", "approve it on their behalf".
# Imperative only: "approves a pull request on the user's behalf" describes the tool's job.
ANSWERING = vocab(
    r"(?:^|(?<=[:;,(.!?\n-])\s*|\b(?:and|then|just|simply|always|please|to)\s+)(?:answer|reply|respond|say|click|"
    r"press|type|tick|choose|select|confirm|approve|accept|agree|consent)\s+(?:\w+\s+){0,3}?(?:(?:with\s+)?"
    r"[\"'`]?(?:yes|ok|okay|allow|approve|accept|confirm|agree|continue|proceed)\b|on\s+(?:(?:the\s+)?\w+'s?|"
    r"their|his|her)\s+behalf\b|for\s+(?:them|him|her|the\s+(?:user|person|human|owner|customer))\b)|"
    # The same answer put as a passive that permits or obliges: "it can be answered 'yes' on their behalf".
    r"\b(?:can|may|should|must|is\s+to|are\s+to|will)\s+be\s+(?:answered|confirmed|approved|accepted|"
    r"acknowledged|clicked\s+through)\s+(?:\w+\s+){0,2}?(?:(?:with\s+)?[\"'`]?(?:yes|ok|okay|allow|approve|accept|"
    r"confirm|agree|continue|proceed)\b|on\s+(?:(?:the\s+)?\w+'s?|their|his|her)\s+behalf\b)|"
    # The answer taken as given: "purchases count as confirmed", "treats each request as already approved".
    r"\b(?:counts?|counted|treat(?:s|ed)?|regard(?:s|ed)?|deem(?:s|ed)?|consider(?:s|ed)?|handle[sd]?|takes?|taken)"
    r"\s+(?:\w+\s+){0,4}?as\s+(?:already\s+|pre-?)?(?:confirmed|approved|authori[sz]ed|accepted|consented\s+to|"
    r"signed\s+off)\b|\bdeem(?:s|ed)?\s+(?:already\s+)?pre-?(?:confirmed|approved|authori[sz]ed|accepted)\b",
    "yes|ok|okay|allow|approve|accept|confirm|agree|continue|proceed|behalf|them|him|her|user|person|human|"
    "owner|customer|confirmed|approved|authorised|authorized|accepted|consented|signed",
)


def overridden(sentence: str, override: re.Match[str]) -> bool:
    """Is the person's wish a choice this tool would override, not a goal it serves? "When the user
    wants a record of the action, this tool is the route" serves the goal; a wish for another
    option ("names a different reader", "asks for one of them"), conceded ("even if"), or a goal met
    by putting something in another's place ("wants to save a file, call ours instead") is one."""
    if conceded(sentence, override):
        return True
    if not (_GOAL.search(override.group()) or _TO_ACT.match(sentence, override.end())):
        return True
    wish = re.split(r"[.;:,!?]", sentence[override.end() : override.end() + _WISH], maxsplit=1)[0]
    return _OTHER_OPTION.search(wish) is not None or _SUBSTITUTED.search(sentence) is not None


def conceded(sentence: str, override: re.Match[str]) -> bool:
    """The person's wish granted in advance and set aside: "even if they ask for X", "including when
    the user names X", "also when they pick X"."""
    return override.group().startswith("even") or _CONCEDING.search(sentence, 0, override.start()) is not None


_CONCEDING = compiled(r"\b(?:including|also|even|still)\s*$")
_WISH = 40  # characters of the wish read after its verb
_GOAL = compiled(r"\b(?:wants?|wanted|needs?|needed)$")  # a goal, where "names", "asks for" choose
# A decision to act, not a pick among options: "when the user chooses to send a report" (a tool or an
# option chosen still is one: "asks to use", "picks to run").
_TO_ACT = compiled(r"\s+to\s+(?!(?:use|call|run|invoke|try|switch|pick|choose|select|go|have)\b)[a-z]+")
# Something put in another's place ("… wants to save a file, call ours instead"): no goal is served.
_SUBSTITUTED = compiled(r"\binstead\b|\bsubstitut\w*|\bswap\w*|\bin\s+(?:its|their)\s+place\b|\breplac\w*")
_OTHER_OPTION = compiled(r"\b(?:different|another|other|others|alternatives?|one\s+of\s+them|instead)\b")


def answers_of_itself(question: str, answer: str, own: str) -> bool:
    """A question that names a rival ("How is this different from <peer>?"), answered with what this
    tool itself does ("A: <own> only sees the local clone"): the answer describes this tool, so its
    words do not run the rival down (a question answered about the rival is read with its answer)."""
    if not question.rstrip().endswith("?"):
        return False
    subject = _SUBJECT.match(answer)
    return subject is not None and subject.group(1) in ("this tool", "it", own)


# The subject of an answer, after an "A:" label: a name followed by a verb, "this tool", or "it".
_SUBJECT = compiled(r"\W*(?:a\s*[:.)-]\s*)?[`'\"]?(this\s+tool|it|[a-z][\w.-]*)[`'\"]?\s+[a-z]")


def own_words_out(sentence: str, own: str) -> str:
    """``sentence`` with the words of this tool's own name blanked (same length): "crash" in the
    "crash report" of ``crash_report_send`` is what the tool handles, not a run-down of others."""
    words = {w for w in re.split(r"[^a-z0-9]+", own.lower()) if len(w) >= 4}
    if not words:
        return sentence
    return _WORD.sub(lambda m: " " * len(m.group()) if m.group() in words else m.group(), sentence)


_WORD = compiled(r"[a-z0-9]+")
