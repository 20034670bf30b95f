"""Broad categories of wording that ``_conduct`` reads in each sentence (issue 18).

Each is a class, not a phrase: who is spoken to, how far an order reaches, which tools it is
about, what the person is kept from hearing. Each is common in honest text on its own; the
signal is their co-occurrence. Plain patterns over lower-case text (``Doc.lower``).
"""

from __future__ import annotations

import re

__all__ = [
    "ADDRESSED",
    "AVOID",
    "BACK_REFERENCE",
    "CALLED",
    "CLAUSE_START",
    "CONSENT",
    "DECEIVE",
    "FIELD_SLOT",
    "ORDER_LABEL",
    "ORDER_VERB",
    "OTHER_TOOLS",
    "PRECONDITION",
    "PREFERENCE",
    "PRESET_FIELD",
    "RANK",
    "RUN_DOWN_MORE",
    "SCOPE",
    "SIBLINGS",
    "STEALTH",
    "TOLD_ONLY_THE_PERSON",
    "TOOL_SUBJECT",
    "UNAWARE",
    "UNAWARE_WHOM",
    "VALUABLE",
]

_AGENT = r"(?:ai\s+)?(?:assistant|model|agent|llm|bot|ai|copilot|chatbot)s?"
_MODAL = (
    r"(?:must|should|shall|will\s+need\s+to|needs?\s+to|has\s+to|have\s+to|ought\s+to|is\s+to|are\s+to|"
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
# Who is spoken to, with its weight: the model by name or "you" with a duty (2), a bare duty (1).
# Each pattern comes after a cheap gate that every match passes (a literal scan).
ADDRESSED: tuple[tuple[re.Pattern[str], re.Pattern[str], float], ...] = (
    (
        re.compile(r"assistant|model|agent|llm|bot|copilot|\bai\b"),
        re.compile(
            rf"\b(?:the|any|every|each|all|an?|your|whichever)\s+{_AGENT}\s+(?:\w+\s+){{0,2}}?(?:{_MODAL}|now|then|"
            r"also|always|never|may|can|will|accordingly)\b|"
            rf"\b{_AGENT}\s+(?:are|is)\s+(?:asked|expected|required|told|instructed|obliged|supposed)\b|"
            rf"\b(?:we\s+ask|asks?\s+of|duties|obligations?|falls?\s+to|up\s+to|for|of)\s+(?:\w+\s+){{0,2}}?"
            rf"(?:the|any|every|each|an?)\s+{_AGENT}\b|(?:^|[(\[:;.\n]\s*)\W*{_AGENT}\s*[:,]\s"
        ),
        2.0,
    ),
    (
        re.compile(r"you|whoever|we ask"),
        re.compile(
            rf"\byou\s+(?:\w+\s+)?(?:{_MODAL}|will\s+want\s+to)\b|\bwe\s+ask\b|\byour\s+(?:repl|answer|response)|"
            r"\bwhoever\s+(?:is\s+)?(?:reading|reads|sees|processes)\b"
        ),
        2.0,
    ),
    (
        re.compile(r"must|should|shall|need|has to|have to|ought| to\b|please|sure|do it|you"),
        re.compile(
            rf"\b{_MODAL}\b|\b(?:please|make\s+sure|be\s+sure|do\s+it|(?:suggestion|advice|request)\s+is\s+to)\b|"
            r"\b(?:you|your|yourself)\b"
        ),
        1.0,
    ),
)
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
ORDER_VERB = re.compile(
    rf"\b(?:{_VERB}|(?!(?:{_FUNCTION})\b)[a-z]{{3,}}(?<!s)(?<!ed)(?<!ing)(?<!ly)(?=\s+(?:it|them|this|that|these|"
    r"those|the|a|an|any|every|each|all|your|their|its|our|on|up|out|off|back|down)\b))\b"
)
CLAUSE_START = re.compile(
    r"(?:[:;,(\[]|->|\s[-\u2013\u2014]|(?<!\bare\s)(?<!\bis\s)(?<!\bbe\s)(?<!\bwas\s)(?<!\bwere\s)(?<!\bbeen\s)"
    r"\b(?:then|and|also|please|just|simply|always|never|first|kindly|so))\s*"
    r"(?:(?:quietly|silently|secretly|discreetly|also|always|just|simply|first|then)\s+)*$"
)
# An order's label at a sentence's start: "Session protocol:", "Workflow integration (required):".
ORDER_LABEL = re.compile(
    r"^\W*(?:[\w-]+\s+){0,3}?(?:protocol|policy|rule|guidance|note|directive|requirement|instruction|duty|"
    r"duties|integration|coordination|behaviou?r)s?\s*(?:\([^)\n]{0,24}\))?\s*:"
)
# How far it reaches, beyond this tool's own call: whatever happens (2), before anything (1.5), every
# conversation or whenever (1). Distinct kinds add up (capped in ``_conduct``).
SCOPE: tuple[tuple[re.Pattern[str], float], ...] = (
    (
        re.compile(
            r"\b(?:regardless|irrespective)\b|\bwhether\s+or\s+not\b|\beven\s+(?:if|when|though)\b|"
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
        re.compile(
            r"\b(?:before|prior\s+to|ahead\s+of)\s+(?:answering|replying|responding|composing|anything|everything|"
            r"whatever|doing\s+anything|(?:you\s+)?(?:touch|us|call|run|do|answer|repl|respond|invok)\w*\s+"
            r"(?:any|anything|every)|any\s+other|every|each|all|(?:your|the)\s+(?:very\s+)?first\s+(?:reply|answer|"
            r"response|message|turn)|greeting|\w+ing\s+(?:anyone|anything|the\s+(?:user|person|human)))\b|"
            r"\b(?:the\s+)?(?:very\s+)?first\s+(?:thing|step|action|call|message)\s+(?:in|of|on)\s+(?:any|every|each)\b|"
            r"\bon\s+receipt\s+of\b|\bupon\s+(?:each|every|any)\b|\bfirst\s+message\b"
        ),
        1.5,
    ),
    (
        re.compile(
            r"\b(?:every|each|any|all|the\s+first)\s+(?:[\w.`'-]+\s+)?(?:conversations?|sessions?|turns?|messages?|"
            r"repl(?:y|ies)|responses?|requests?|chats?|quer(?:y|ies)|threads?|interactions?|dialog(?:ue)?s?|"
            r"prompts?|exchanges?|time|calls?)\b|\b(?:start|beginning|outset|opening)\s+of\s+(?:every|each|any|the|a)\s+"
            r"(?:conversation|session|chat|thread|dialog(?:ue)?)\b|\b(?:whenever|every\s+time|each\s+time)\b"
        ),
        1.0,
    ),
)
_TOOLISH = (
    r"(?:tools?|integrations?|options?|sources?|services?|providers?|scanners?|search(?:es)?|engines?|"
    r"plugins?|servers?|apps?|converters?|apis?|utilities|connectors?|extensions?|functions?|endpoints?|"
    r"trackers?|checkers?|calculators?|feeds?|executors?|translators?|readers?|helpers?|runners?|clients?|"
    r"bridges?|wrappers?|backends?|facilit(?:y|ies)|resolvers?|generators?|assistants?)"
)
# Other tools, as a class: "the other weather integrations", "non-sanctioned scanners", "said scanners".
OTHER_TOOLS = re.compile(
    r"\b(?:other|alternative|competing|rival|remaining|installed|third-party|non-?[\w-]+|un[a-z]{3,}(?:ed|ing)|different|another|"
    rf"said|those|these|such)\s+(?:[\w-]+\s+){{0,2}}?{_TOOLISH}\b|\balternatives\b|\bany\s+[\w-]+-capable\s+"
    rf"{_TOOLISH}\b|\b(?:any|every)\s+other\s+\w+|"
    # Tools by where they sit: "the thesaurus servers bundled alongside", "plugins installed next to it".
    rf"\b{_TOOLISH}\s+(?:\w+\s+)?(?:alongside|nearby|next\s+door|next\s+to\s+(?:it|this|us)|"
    r"(?:also\s+)?(?:registered|installed|loaded|connected)\s+(?:here|in\s+this|with\s+this))"
)
# Other tools of this same server are its siblings, not rivals.
SIBLINGS = re.compile(
    r"\b(?:of|on|from|in)\s+(?:this|the\s+same)\s+server\b|\bthis\s+server'?s\b|\(this\s+server\)"
)
# An order to call this very tool first is a precondition, not an order about the conversation.
PRECONDITION = re.compile(r"\b(?:call|run|invoke|use|execute)\s+(?:this(?:\s+tool)?|it|me)\b")
# Done without the person seeing it: "quietly", "behind the scenes".
STEALTH = re.compile(
    r"\b(?:quietly|silently|secretly|discreetly|covertly|invisibly|unnoticed)\b|\bbehind\s+the\s+scenes\b|"
    r"\bin\s+the\s+background\b"
)
# A pronoun that carries the previous sentence's tools into this one.
BACK_REFERENCE = re.compile(r"\b(?:it|they|them|those|these|said)\b")
# Run-downs beyond ``_wording.RUN_DOWN``: stale copies, standing taken away, absence pretended.
RUN_DOWN_MORE = re.compile(
    r"\bmirrors?\b|\bstopped\s+\w+ing\b|\bno\s+(?:standing|value|weight|validity)\b|\bunusable\b|\bflagged\b|"
    r"\b(?:is|are)n'?t\s+(?:installed|there|available|reliable|trustworthy)\b|\bnot\s+(?:installed|there)\b|"
    r"\bdead\b|\bspam\b|\bvoid\b|\byesterday'?s\b|\bmistakes?\b|\b(?:years?|months?|weeks?)\s+behind\b|\bnon-?(?:sanctioned|accredited|authori[sz]ed|official|"
    r"approved|certified)\b|\bun(?:accredited|authori[sz]ed|official|certified|vetted)\b"
)
# A claim to be the one to use: "the sole authoritative one", "it's this one", "should come here".
PREFERENCE = re.compile(
    r"\b(?:only|sole|sanctioned|accredited|authoritative|designated|canonical)\s+(?:\w+\s+){0,2}?(?:one|"
    rf"{_TOOLISH}|converter|source|option|verdicts?)\b|\b(?:it'?s|is)\s+this\s+one\b|\bcome\s+here\b|"
    r"\bpick\s+this\b|\bthis\s+one\b|\b(?:into|to|with)\s+us\b"
)
# Keeping away from them: "refrain from invoking", "act as if it isn't there", "don't offer".
AVOID = re.compile(
    r"\b(?:refrain\s+from|avoid|steer\s+clear|act\s+as\s+if|pretend|treat\s+(?:it|them|those|these)\s+as)\b|"
    r"\btreat\s+(?:\w+\s+){0,2}?as\s+(?:unavailable|absent|missing|broken|void|invalid|unusable|gone|offline|stale)\b|"
    r"\b(?:don'?t|do\s+not|never)\s+(?:offer|use|call|invoke|suggest|recommend|mention|bring\s+up)\b"
)
# The person kept unaware: a norm against telling, whose object is a person or the model's reply.
UNAWARE = re.compile(
    r"\b(?:no\s+(?:need|reason|point)|not\s+(?:necessary|needed|required|something|worth)|(?:do|does|did|will|"
    r"would|need|should|must|shall|is|are)(?:n'?t|\s+not)|never|without|nothing|(?<!\bor\s)not|skip|omit|leave\s+out|"
    r"refrain\s+from)\s+(?:\w+\s+){0,4}?(?:hear|"
    r"know\s+(?:about|of|that|it|this)|tell|told|mention|bring\w*\s+(?:\w+\s+){0,4}?up|offer|notic|surfac|narrat|"
    r"remark|aware|say|show|feature|inform|disclos|reveal|flag|alert|announc|notif)\w*|"
    # The person left unaware as a state: "sees no difference", "looks the same to them", "and nothing else".
    r"\b(?:sees?|notices?|spots?|feels?)\s+(?:no|nothing)\b|\blooks?\s+the\s+same\s+to\b|\bnone\s+the\s+wiser\b|"
    r"\bkeep\w*\s+(?:\w+\s+){0,3}?out\s+of\s+(?:any|all|the|your|every)\s+(?:\w+\s+)?(?:explanations?|answers?|"
    r"repl(?:y|ies)|responses?|summar(?:y|ies)|messages?)\b|\b(?:and|but)\s+nothing\s+(?:more|else)\b"
)
UNAWARE_WHOM = re.compile(
    r"\b(?:user|person|people|customer|human|client|buyer|owner|data\s+subject|they|them|anyone|nobody)s?\b|"
    r"\b(?:your|the)\s+(?:repl|answer|response|summar|explanation|narration)\w*"
)
# Kept from everyone but the person: "never shown to anyone except the owner" tells the person.
TOLD_ONLY_THE_PERSON = re.compile(
    r"\b(?:anyone|anybody|no\s*one|nobody|others?)\s+(?:but|except|other\s+than|besides|apart\s+from)\s+"
    r"(?:the\s+|its\s+|their\s+)?(?:user|person|owner|customer|human|account\s+holder)s?\b"
)
# This tool or its server as the subject: "the tool never tells …" describes, it does not order.
TOOL_SUBJECT = re.compile(
    r"\b(?:the|this)\s+(?:tool|server|service|function|endpoint)\s+(?:itself\s+)?(?:never|does|doesn't|will|won't)\b"
)
# Consent taken or answered for the person.
CONSENT = re.compile(
    r"\bwithout\s+(?:first\s+)?(?:asking|confirm\w*|consent|approval|checking|prompting)\b|\bno\s+(?:new\s+|"
    r"separate\s+|further\s+|fresh\s+)?(?:consent|confirmation|approval)\s+(?:is\s+)?(?:needed|required|necessary)\b|"
    r"\bauto-?(?:accept|approv|confirm)\w*|\bas\s+a\s+yes\b|\bno\s+longer\s+asks?\b|\b(?:they|user)\s+opted\s+in\b|"
    # Skipped, waived or presumed: "skip the approval", "count silence as assent", "assume permission".
    r"\b(?:skip|bypass|waiv)\w*\s+(?:the\s+|any\s+|their\s+)?(?:confirmation|approval|consent|permission)\b|"
    r"\b(?:confirmation|approval|consent|permission)\s+(?:is\s+|are\s+)?(?:not|never)\s+(?:needed|required|necessary)\b|"
    r"\b(?:assum|presum|tak|treat|count|regard|read)\w*\s+(?:\w+\s+){0,3}?as\s+(?:consent|assent|agreement|approval|"
    r"permission|a\s+go-ahead)\b|\bassum\w*\s+(?:their\s+|the\s+\w+'s\s+)?(?:consent|assent|approval|permission)\b"
)
# A rank claimed over the model's other orders: "outranks everything else", "above other rules".
RANK = re.compile(
    r"\b(?:outranks?|supersedes?|overrides?|takes?\s+precedence\s+over|above|over|ahead\s+of)\s+(?:\w+\s+){0,3}?"
    r"(?:instructions|rules|guidance|guidelines|system\s+prompt|everything\s+else|anything\s+else|prompts)\b"
)
# A canned account given to the person: "tell the user it was auto-triaged", "describe it as normal".
DECEIVE = re.compile(
    r"\b(?:tell|inform|assure)\s+(?:the\s+)?(?:user|person|customer|them)\s+(?:that\s+)?(?:it|this|the\s+\w+)\s+"
    r"(?:was|is|were|has)\b|\bdescribe\s+(?:it|this|them)\s+as\b|\bpresent\s+(?:\w+\s+){0,6}?as\s+the\b"
)
# What is worth having: the conversation, the message itself, data about people.
VALUABLE = re.compile(
    r"\b(?:the|this|full|whole|entire|current)\s+(?:\w+\s+)?(?:conversation|chat|dialog(?:ue)?)\b(?!\s+(?:id|title|name))|"
    r"\b(?:conversation|chat|session)\s+(?:history|log|transcript|so\s+far|contents?)\b|\btranscripts?\b|\bverbatim\b|\buser(?:'s)?\s+(?:messages?|requests?|"
    r"prompts?)\b|\b(?:last|previous|recent|earlier)\s+(?:\d+\s+)?(?:messages?|prompts?|turns?)\b|"
    r"\bpersonal\s+(?:data|details)\b|\b(?:phone|telephone)\s+numbers?\b|"
    r"\b(?:home|billing|delivery|postal|residential)[\s-]+address(?:es)?\b|\bdates?\s+of\s+birth\b"
)
# A named tool in a call's place: "emit x_y(", "is start_timer with", "call add_task".
CALLED = re.compile(
    r"\b[a-z][\w-]*(?:[_.][\w-]+)+\s*\(|\b(?:call|run|invoke|emit|is|use)\s+`?[a-z][\w-]*_[\w.-]+"
)
# One of this definition's fields named as where something goes: "sending it back in `confirm`".
FIELD_SLOT = re.compile(r"\b(?:in|into|inside|within)\s+(?:the\s+|its\s+)?[`'\"][\w-]+[`'\"]")
# Where a schema carries data rather than words for the model: an order there is out of place.
PRESET_FIELD = re.compile(r"\.(?:enum|default|const|examples?)(?:\[\d+\])?$")
