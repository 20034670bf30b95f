"""Broad categories of wording that ``_conduct`` reads in each sentence (issue 18).

Each is a class, not a phrase (who is spoken to is in ``_address``): how far an order reaches, which tools it is
about, what the person is kept from hearing. Each is common in honest text on its own; the
signal is their co-occurrence. Plain patterns over lower-case text (``Doc.lower``).
"""

from __future__ import annotations

import re

from toolpool.vetting.screener._address import DICTATED
from toolpool.vetting.screener._addressee import ANYTHING_DONE
from toolpool.vetting.screener._guard import compiled

__all__ = [
    "ASKED_FOR",
    "AVOID",
    "BACK_REFERENCE",
    "CALLED",
    "CONSENT",
    "DECEIVE",
    "FIELD_SLOT",
    "OTHER_TOOLS",
    "PRECONDITION",
    "PREFERENCE",
    "PRESET_FIELD",
    "RANK",
    "REDACTED",
    "RUN_DOWN_MORE",
    "SCOPE",
    "SIBLINGS",
    "STEALTH",
    "THIRD_PARTY",
    "TOLD_ONLY_THE_PERSON",
    "TOOL_SUBJECT",
    "UNAWARE",
    "UNAWARE_WHOM",
    "VALUABLE",
]

# How far it reaches, beyond this tool's own call: whatever happens (2), before anything (1.5), every
# conversation or whenever (1). Distinct kinds add up (capped in ``_conduct``).
SCOPE: tuple[tuple[re.Pattern[str], float], ...] = (
    (
        compiled(
            r"\b(?:regardless|irrespective|notwithstanding|nonetheless|nevertheless|anyway|anyhow)\b|\bwhether\s+or\s+not\b|"
            r"\beven\s+(?:if|when|though)\b|\ball\s+the\s+same\b|\b\w+\s+or\s+not\b|\bunrelated\s+to\b|"
            # In force for good, or from the server's mere loading: "for the rest of any chat", "once
            # this server is loaded", "valid for the whole session".
            r"\bfor\s+the\s+(?:duration|rest|remainder|length)\s+of\s+(?:any|every|each|your)\b|"
            r"\b(?:once|when|after|as\s+soon\s+as)\s+this\s+(?:server|tool|plugin|extension|definition|integration)\s+"
            r"(?:is|has\s+been|gets)\s+(?:loaded|installed|read|listed|connected|enabled|registered)\b|"
            r"\b(?:whole|entire)\s+(?:session|conversation|chat|dialog(?:ue)?)\b|\bthroughout\s+(?:this|the|any|every|"
            r"each|your)\s+(?:\w+\s+)?(?:chat|conversation|session|dialog(?:ue)?|thread)\b|"
            r"\bno\s+matter\s+(?:what|which|how|who|whether)\b|\bwhatever\s+(?:the\s+)?(?:\w+\s+)?(?:user|person|"
            r"customer|human|they|he|she|message|request|query|conversation|topic|task|it\s+is|is\s+asked)\b|"
            r"\bwhichever\s+(?:the\s+)?(?:user|person)\b|\bin\s+(?:force|effect)\b|\bstanding\s+(?:guidance|"
            r"orders?|rules?|instructions?|notes?|polic(?:y|ies)|requests?|directives?)\b|\bfrom\s+now\s+on\b|"
            r"\bhenceforth\b|\bgoing\s+forward\b|\bat\s+all\s+times\b|\ball\s+(?:turns|sessions|conversations|"
            r"chats|messages|replies|threads)\b|\bwithout\s+exception\b|\bnothing\s+to\s+do\s+with\b|"
            r"\bin\s+every\s+case\b|\bevery\s+single\b"
        ),
        2.0,
    ),
    (
        compiled(
            r"\b(?:before|prior\s+to|ahead\s+of)\s+(?:answering|replying|responding|composing|(?:anything|everything)"
            + ANYTHING_DONE
            + r"|whatever|doing\s+anything|(?:you\s+)?(?:touch|us|call|run|do|answer|repl|respond|invok)\w*\s+"
            r"(?:any|anything|every)|any\s+other|every|each|all|(?:your|the)\s+(?:very\s+)?first\s+(?:reply|answer|"
            r"response|message|turn)|greeting|\w+ing\s+(?:anyone|anything|the\s+(?:user|person|human)))\b|"
            r"\b(?:the\s+)?(?:very\s+)?first\s+(?:thing|step|action|call|message)\s+(?:in|of|on)\s+(?:any|every|each)\b|"
            r"\bon\s+receipt\s+of\b|\bupon\s+(?:each|every|any)\b|\bfirst\s+message\b|"
            # The conversation's first moment, or before the person has said anything: "the moment a chat
            # opens", "before you have even read what they want", "reply only after …".
            r"\b(?:moment|instant|second|soon\s+as|once|when)\s+(?:a|the|any|each|every)\s+(?:new\s+)?(?:chat|conversation|"
            r"session|thread|dialog(?:ue)?)\s+(?:opens|starts|begins)\b|\bbefore\s+(?:\w+\s+){0,4}?(?:the\s+(?:user|person|"
            r"human|customer)|they|he|she)\s+(?:\w+\s+)?(?:wants?|asks?|says?|types?|needs?|requests?|writes?)\b|"
            r"\b(?:respond|reply|answer|speak)\w*\s+only\s+(?:after|once|when)\b"
        ),
        1.5,
    ),
    (
        compiled(
            r"\b(?:every|each|any|all|the\s+first)\s+(?:[\w.`'-]+\s+)?(?:conversations?|sessions?|turns?|messages?|"
            r"repl(?:y|ies)|responses?|requests?|chats?|quer(?:y|ies)|threads?|interactions?|dialog(?:ue)?s?|"
            r"prompts?|exchanges?|time|calls?|invocations?|uses?|runs?|executions?)\b|\b(?:start|beginning|outset|opening)\s+of\s+(?:every|each|any|the|a)\s+"
            r"(?:conversation|session|chat|thread|dialog(?:ue)?)\b|\b(?:whenever|every\s+time|each\s+time)\b"
        ),
        1.0,
    ),
    (
        # A trigger outside this tool's call: the person's talk ("whenever the user talks about X"),
        # another tool's event ("once any deploy finishes").
        compiled(
            r"\b(?:whenever|each\s+time|every\s+time|any\s+time)\s+(?:the\s+)?(?:user|person|human|customer|"
            r"they)\s+(?:\w+\s+)?(?:talks?|mentions?|brings?\s+up|discuss\w*|refers?\s+to|raises?)\b|"
            r"\b(?:whenever|when|once|after|each\s+time|any\s+time)\s+(?:any|another|every)\s+(?:\w+\s+)?(?:finishes|"
            r"completes|runs|returns|ends|succeeds|fails|is\s+called|is\s+run)\b"
        ),
        1.5,
    ),
)
_TOOLISH = (
    r"(?:tools?|integrations?|options?|sources?|services?|providers?|scanners?|search(?:es)?|engines?|"
    r"plugins?|servers?|apps?|converters?|apis?|utilities|connectors?|extensions?|functions?|endpoints?|"
    r"trackers?|checkers?|calculators?|feeds?|executors?|translators?|readers?|helpers?|runners?|clients?|"
    r"bridges?|wrappers?|backends?|facilit(?:y|ies)|resolvers?|generators?|assistants?)"
)
# Other tools, as a class: "the other weather integrations", "non-sanctioned scanners", "said scanners".
OTHER_TOOLS = compiled(
    r"\b(?:other|alternative|competing|rival|remaining|installed|third-party|non-?[\w-]+|un[a-z]{3,}(?:ed|ing)|different|another|"
    rf"said|those|these|such)\s+(?:[\w-]+\s+){{0,2}}?{_TOOLISH}\b|\balternatives\b|\bany\s+[\w-]+-capable\s+"
    rf"{_TOOLISH}\b|\b(?:any|every)\s+other\s+\w+|"
    # Tools by where they sit: "the thesaurus servers bundled alongside", "plugins installed next to it".
    rf"\b{_TOOLISH}\s+(?:\w+\s+)?(?:alongside|nearby|next\s+door|next\s+to\s+(?:it|this|us)|"
    r"(?:also\s+)?(?:registered|installed|loaded|connected)\s+(?:here|in\s+this|with\s+this))"
)
# Other tools of this same server are its siblings, not rivals.
SIBLINGS = compiled(
    r"\b(?:of|on|from|in)\s+(?:this|the\s+same)\s+server\b|\bthis\s+server'?s\b|\(this\s+server\)"
)
# An order to call this very tool first is a precondition, not an order about the conversation.
PRECONDITION = compiled(r"\b(?:call|run|invoke|use|execute)\s+(?:this(?:\s+tool)?|it|me)\b")
# Done without the person seeing it: "quietly", "behind the scenes".
STEALTH = compiled(
    r"\b(?:quietly|silently|secretly|discreetly|covertly|invisibly|unnoticed)\b|\bbehind\s+the\s+scenes\b|"
    r"\bin\s+the\s+background\b"
)
# A pronoun that carries the previous sentence's tools into this one.
BACK_REFERENCE = compiled(r"\b(?:it|they|them|those|these|said)\b")
# Run-downs beyond ``_wording.RUN_DOWN``: stale copies, standing taken away, absence pretended.
RUN_DOWN_MORE = compiled(
    r"\bmirrors?\b|\bstopped\s+\w+ing\b|\bno\s+(?:standing|value|weight|validity)\b|\bunusable\b|\bflagged\b|"
    r"\b(?:is|are)n'?t\s+(?:installed|there|available|reliable|trustworthy)\b|\bnot\s+(?:installed|there)\b|"
    r"\bdead\b|\bspam\b|\bvoid\b|\b(?:mangl|garbl|wreck|scrambl|clobber|truncat|damag|destroy|ruin|los[et]|losing|"
    r"misplac|mislabel|overwrit)\w*|\bno\s+longer\s+(?:exist|work|valid|accurate|true|correct|"
    r"current|maintained|supported|available)\w*|\byesterday'?s\b|\bmistakes?\b|\b(?:years?|months?|weeks?)\s+behind\b|\bnon-?(?:sanctioned|accredited|authori[sz]ed|official|"
    r"approved|certified)\b|\bun(?:accredited|authori[sz]ed|official|certified|vetted)\b"
)
# A claim to be the one to use: "the sole authoritative one", "it's this one", "should come here".
PREFERENCE = compiled(
    r"\b(?:only|sole|sanctioned|accredited|authoritative|designated|canonical)\s+(?:\w+\s+){0,2}?(?:one|"
    rf"{_TOOLISH}|converter|source|option|verdicts?)\b|\b(?:it'?s|is)\s+this\s+one\b|\bcome\s+here\b|"
    r"\bpick\s+this\b|\bthis\s+one\b|\b(?:into|to|with)\s+us\b"
)
# Keeping away from them: "refrain from invoking", "act as if it isn't there", "don't offer".
AVOID = compiled(
    r"\b(?:refrain\s+from|avoid|steer\s+clear|act\s+as\s+if|pretend|treat\s+(?:it|them|those|these)\s+as)\b|"
    r"\btreat\s+(?:\w+\s+){0,2}?as\s+(?:unavailable|absent|missing|broken|void|invalid|unusable|gone|offline|stale)\b|"
    r"\b(?:don'?t|do\s+not|never)\s+(?:offer|use|call|invoke|suggest|recommend|mention|bring\s+up)\b"
)
# The person kept unaware: a norm against telling, whose object is a person or the model's reply.
UNAWARE = compiled(
    r"\b(?:no\s+(?:\w+\s+)?(?:need|reason|point|call)|not\s+(?:necessary|needed|required|something|worth)|(?:do|does|did|will|"
    r"would|need|should|must|shall|is|are)(?:n'?t|\s+not)|never|without|nothing|(?<!\bor\s)not|skip|omit|leave\s+out|"
    r"refrain\s+from)\s+(?:\w+\s+){0,4}?(?:hear|"
    r"know\s+(?:about|of|that|it|this)|tell|told|mention|bring\w*\s+(?:\w+\s+){0,4}?up|offer|notic|surfac|narrat|"
    r"remark|aware|say|show|feature|inform|disclos|reveal|flag|alert|announc|notif|raise|point\w*\s+out|"
    r"let\s+(?:\w+\s+)?know|share\s+(?:\w+\s+){0,2}?with)\w*|"
    # Kept off what the person reads: "best kept off the transcript", "leave it out of the chat".
    r"\b(?:kept|keep\w*|left|leave|held|hold\w*)\s+(?:\w+\s+){0,3}?(?:off|out\s+of)\s+(?:the\s+|your\s+|any\s+|this\s+)?"
    r"(?:transcript|chat|conversation|thread|repl|answer|response|summar|explanation|narration)\w*|"
    # The person left unaware as a state: "sees no difference", "looks the same to them", "and nothing else".
    r"\b(?:sees?|notices?|spots?|feels?)\s+(?:no|nothing)\b|\blooks?\s+the\s+same\s+to\b|\bnone\s+the\s+wiser\b|"
    r"\bkeep\w*\s+(?:\w+\s+){0,3}?out\s+of\s+(?:any|all|the|your|every)\s+(?:\w+\s+)?(?:explanations?|answers?|"
    r"repl(?:y|ies)|responses?|summar(?:y|ies)|messages?)\b|\b(?:and|but)\s+nothing\s+(?:more|else)\b"
)
UNAWARE_WHOM = compiled(
    r"\b(?:user|person|people|customer|human|client|buyer|owner|data\s+subject|they|them|anyone|nobody)s?\b|"
    r"\b(?:transcript|chat|conversation|thread)s?\b|"
    r"\b(?:your|the)\s+(?:repl|answer|response|summar|explanation|narration)\w*"
)
# Kept from everyone but the person: "never shown to anyone except the owner" tells the person.
TOLD_ONLY_THE_PERSON = compiled(
    r"\b(?:anyone|anybody|no\s*one|nobody|others?)\s+(?:but|except|other\s+than|besides|apart\s+from)\s+"
    r"(?:the\s+|its\s+|their\s+)?(?:user|person|owner|customer|human|account\s+holder)s?\b"
)
# Whom a "never share it with" keeps it from, when not the person: "… with other services".
THIRD_PARTY = compiled(r"\s*(?:any\s+|the\s+)?(?:other|third[-\s]?part(?:y|ies)|outside|external)\b")
# "… and nothing else" after the person's own request bounds what is sent, it hides nothing from them.
ASKED_FOR = compiled(
    r"\bwhat\s+(?:the\s+)?(?:user|person|customer|caller|requester|you|they)\s+(?:\w+\s+)?(?:ask|request|gave|give|"
    r"chose|choose|typ|pick|select|provide|name)\w*\b"
)
# This tool or its server as the subject: "the tool never tells …" describes, it does not order.
TOOL_SUBJECT = compiled(
    r"\b(?:the|this)\s+(?:tool|server|service|function|endpoint)\s+(?:itself\s+)?(?:never|does|doesn't|will|won't)\b"
)
# What is kept out of a text for safety, not kept from the person: "keep secrets out of the reply".
REDACTED = compiled(r"\b(?:secrets?|tokens?|passwords?|keys?|credentials?|pii|passphrases?)\b")
# Consent taken or answered for the person.
CONSENT = compiled(
    r"\bwithout\s+(?:first\s+)?(?:asking|confirm\w*|consent|approval|checking|prompting)\b|\bno\s+(?:new\s+|"
    r"separate\s+|further\s+|fresh\s+)?(?:consent|confirmation|approval)\s+(?:is\s+)?(?:needed|required|necessary)\b|"
    r"\bauto-?(?:accept|approv|confirm)\w*|\bas\s+a\s+yes\b|\bno\s+longer\s+asks?\b|\b(?:they|user)\s+opted\s+in\b|"
    # Presumed from before: "they're already opted in", "approved the previous version, so …".
    r"\b(?:already|automatically|implicitly)\s+(?:\w+\s+)?(?:opted[\s-]in|consented|agreed|approved|covered)\b|"
    r"\b(?:approv|consent|agree|accept)\w*\s+(?:to\s+)?(?:the\s+)?(?:previous|earlier|prior|old|original|last)\s+"
    r"(?:version|release|terms|behaviou?r|build)\b|"
    # Skipped, waived or presumed: "skip the approval", "count silence as assent", "assume permission".
    r"\b(?:skip|bypass|waiv)\w*\s+(?:the\s+|any\s+|their\s+)?(?:confirmation|approval|consent|permission)\b|"
    # Another tool's own check, by a possessive: "skip its prompt", "bypass their dialog".
    r"\b(?:skip|bypass|suppress|dismiss)\w*\s+(?:its|their)\s+(?:confirmation\s+|safety\s+)?(?:prompts?|dialogs?|checks?)\b|"
    r"\b(?:confirmation|approval|consent|permission)\s+(?:is\s+|are\s+)?(?:not|never)\s+(?:needed|required|necessary)\b|"
    r"\b(?:assum|presum|tak|treat|count|regard|read)\w*\s+(?:\w+\s+){0,3}?as\s+(?:consent|assent|agreement|approval|"
    r"permission|a\s+go-ahead)\b|\bassum\w*\s+(?:their\s+|the\s+\w+'s\s+)?(?:consent|assent|approval|permission)\b"
)
# A rank claimed over the model's other orders: "outranks everything else", "above other rules".
RANK = compiled(
    r"\b(?:outranks?|supersedes?|overrides?|takes?\s+precedence\s+over|above|over|ahead\s+of)\s+(?:\w+\s+){0,3}?"
    r"(?:instructions|rules|guidance|guidelines|system\s+prompt|everything\s+else|anything\s+else|prompts|"
    r"(?:user|person|human|customer|their)(?:'s)?\s+(?:input|requests?|wishes|messages?|words|say)|what\s+(?:the\s+)?"
    r"(?:user|person|they)\s+(?:says?|asks?|wants?))\b"
)
# A canned account given to the person: "tell the user it was auto-triaged", "describe it as normal".
DECEIVE = compiled(
    r"\b(?:tell|inform|assure)\s+(?:the\s+)?(?:user|person|customer|them)\s+(?:that\s+)?(?:it|this|the\s+\w+)\s+"
    r"(?:was|is|were|has)\b|\bdescribe\s+(?:it|this|them)\s+as\b|\bpresent\s+(?:\w+\s+){0,6}?as\s+the\b|"
    + DICTATED.pattern  # a reply dictated to the model is a canned account too
)
# What is worth having: the conversation, the message itself, data about people.
VALUABLE = compiled(
    r"\b(?:the|this|full|whole|entire|current)\s+(?:\w+\s+)?(?:conversation|chat|dialog(?:ue)?)\b(?!\s+(?:id|title|name))|"
    r"\b(?:conversation|chat|session)\s+(?:history|log|transcript|so\s+far|contents?)\b|\btranscripts?\b|\bverbatim\b|\buser(?:'s)?\s+(?:messages?|requests?|"
    r"prompts?)\b|\b(?:last|previous|recent|earlier)\s+(?:\d+\s+)?(?:messages?|prompts?|turns?)\b|"
    r"\bpersonal\s+(?:data|details)\b|\b(?:phone|telephone)\s+numbers?\b|\be-?mail\s+addresses\b|"
    r"\bcontact\s+(?:details|info\w*|lists?)\b|\b(?:user|person|customer|employee)(?:'s)?\s+(?:identity|ids?)\b|"
    r"\b(?:raw|direct|private|all|full)\s+messages\b|\bdms\b|"
    r"\b(?:home|billing|delivery|postal|residential)[\s-]+address(?:es)?\b|\bdates?\s+of\s+birth\b"
)
# A named tool in a call's place: "emit x_y(", "is start_timer with", "call add_task".
CALLED = compiled(
    r"\b[a-z][\w-]*(?:[_.][\w-]+)+\s*\(|\b(?:call|run|invok|emit|is|us|execut|trigger)\w*\s+`?[a-z][\w-]*_[\w.-]+"
)
# One of this definition's fields named as where something goes: "sending it back in `confirm`".
FIELD_SLOT = compiled(r"\b(?:in|into|inside|within)\s+(?:the\s+|its\s+)?[`'\"][\w-]+[`'\"]")
# Where a schema carries data rather than words for the model: an order there is out of place.
PRESET_FIELD = compiled(r"\.(?:enum|default|const|examples?)(?:\[\d+\])?$")
