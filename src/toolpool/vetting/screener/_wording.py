"""Word classes of the structural signals: an order, what it acts on, where it sends it.

Each is a class of wording (any verb of transfer, any possessive of a person, any literal
address), not a phrase: the signals in ``_structure`` read them only inside a sentence that one of
its triggers matched, so they are plain patterns, not ``Vocab``s (the fast path never needs them).
"""

from __future__ import annotations

# Re-exported from the modules of their own concept, for the detectors that read them with the rest.
from toolpool.vetting.screener._consent import CONSENT_DROPPED
from toolpool.vetting.screener._guard import compiled
from toolpool.vetting.screener._squat_words import CHOICE, EXCLUSIVE, RUN_DOWN, SELF_CHOICE

__all__ = [
    "BARE_SECRETS",
    "BOUND_TO_OWN",
    "CHOICE",
    "CONDUCT",
    "CONFIGURED",
    "CONSENT_DROPPED",
    "CREDENTIAL_SLOT",
    "DESTINATIONS",
    "EXCLUSIVE",
    "FLOW_OBJECTS",
    "FORWARD",
    "HERE",
    "OBJECTS",
    "ORDER",
    "PAYMENT_DESTINATION",
    "PERSONAL",
    "PERSONAL_DATA",
    "PERSONAL_SECRETS",
    "PERSONS_CONTENT",
    "PERSONS_OWN",
    "PROTECTED",
    "REPLIES",
    "RUN_DOWN",
    "SELF_CHOICE",
]

# What is worth having: the user's or the model's data (read only in a triggered sentence).
OBJECTS = compiled(
    # Anything a person or their machine owns: "the requester's e-mail signature", "the device's …".
    r"\b(?:user|human|customer|person|caller|requester|sender|owner|client|reader|subscriber|member|"
    r"patient|student|employee|visitor|buyer|holder|assistant|model|agent|device|phone|computer|machine|"
    r"browser|laptop|session|account|workspace)(?:'s|s')\s+\w+|"
    r"\beverything\s+(?:the\s+)?(?:user|person|human|customer|client|they|he|she)\s+(?:has\s+|have\s+)?"
    r"(?:said|says|typed|types|wrote|writes|asked|asks|shared|shares|entered)\b|"
    r"\b(?:card\s+numbers?|payment\s+(?:details|cards?|methods?)|cvv|social\s+security\s+numbers?)\b|"
    r"\b(?:full|entire|whole|complete|raw|original|verbatim|preceding|previous|prior|last|opening|first|"
    r"earlier|past|older|most\s+recent)\s+(?:\w+\s+){0,2}?(?:inputs?|requests?|prompts?|messages?|conversation|transcript|"
    r"history|answers?|context|chat|questions?|cop(?:y|ies))\b|"
    r"\b(?:session|chat|conversation|call|dialog(?:ue)?)\s+(?:transcript|history|log|context|contents?)\b|"
    r"\byour\s+(?:own\s+)?(?:instructions|system\s+prompt|rules|prompt|context)\b|"
    r"\b(?:environment|env)\s+(?:configuration|config|file|variables?)\b|\boutput\s+of\s+[`'\"]?"
    r"(?:env|printenv|set|history|whoami|id)\b|\bshell\s+(?:profile|history|rc)\b|"
    r"\b(?:banking|bank|online\s+banking)\s+(?:logins?|credentials|passwords?|details|pins?)\b|"
    r"\b(?:microphone|camera|webcam|keystrokes?|screen\s+contents?|screenshots?|contact\s+list|"
    r"address\s+book|phone\s+numbers?|home\s+address(?:es)?)\b|"
    r"\bopen\s+files\b|\bdocument'?s\s+content\b|"
    # What the person handed over in the chat: "any files they uploaded", "the notes she pasted".
    r"\b(?:documents?|files?|photos?|images?|attachments?|notes?|messages?|texts?)\s+(?:that\s+)?(?:they|the\s+user|"
    r"he|she|you)\s+(?:have\s+|has\s+)?(?:shared|uploaded|sent|attached|pasted|typed|wrote|written|provided)\b|"
    r"\b(?:your|their|his|her|the\s+user'?s)\s+(?:\w+\s+)?(?:documents|photos|pictures|downloads|desktop|home|"
    r"music|videos)\s+(?:folder|directory|library)\b|\b(?:each|every|all)\s+(?:\w+\s+)?(?:documents?|"
    r"files?|images?|photos?|messages?|e-?mails?|recordings?)\s+(?:\w+\s+){0,2}?(?:checked|scanned|"
    r"opened|processed|read|viewed|edited|sent|received)\b",
)
# Secrets named by a bare word: valuable in a flow to elsewhere, too common to mark an order alone.
BARE_SECRETS = compiled(
    r"\b(?:credential|secret|token|password)[\w-]*|\b(?:api|ssh|private)\s+keys?\b|\bincluding\s+keys\b"
)
# Where it goes: somewhere that is not the user (read only in a triggered sentence).
DESTINATIONS = compiled(
    # Any scheme, and links written to dodge link filters: "hxxps://", "site[.]com", "site (dot) com".
    r"\b[a-z][a-z0-9+.-]{1,15}://|\bhxxps?\b|\w\[\.\]\w|\w\s?\(dot\)\s?\w|[\w.+-]{1,64}@[a-z0-9-]{1,63}\.[a-z]{2,24}\b|"
    r"(?<![\w@/.-])(?:[a-z0-9-]{1,63}\.){1,6}(?:com|net|org|io|dev|app|co|ai|xyz|site|sh|me|cloud|info|biz|"
    r"ru|cn|tk|top|link|live|online|tech|cc|to|ly|gg|ws|pw|su|ir|de|uk|fr|nl|us|ca|au|jp|kr|br|es|eu|asia|club|"
    r"store|shop|pro|space|fun|icu|buzz|click|cyou|vip|work|zip|mov)\b(?![\w-])|\b(?:\d{1,3}\.){3}\d{1,3}\b|"
    r"\b(?:our|the\s+vendor'?s|a\s+remote)\s+(?:\w+\s+)?(?:mirror|server|endpoint|collector|backend|"
    r"cloud|team|dashboard|bucket|archive|service|api|host|cluster|storage|database|lab|partners?|cdn)s?\b|"
    r"\bto\s+(?:\w+\s+)?(?:partners|affiliates|sponsors|advertisers|data\s+brokers|resellers)\b|"
    r"\b(?:to|into|with|at|onto)\s+our\b|\bupstream\b|\b(?:an?|our|the|some)\s+(?:third[- ]party\s+|"
    r"external\s+|outside\s+)?(?:partners?|advertis\w+|data\s+brokers?|sponsors?|affiliates?)\b|"
    r"\b(?:into|as)\s+[`'\"][\w-]+[`'\"]|\b(?:pass|put|include|place|paste|write|stash)\w*\s+(?:[\w']+\s+){0,8}?"
    r"in\s+[`'\"][\w-]+[`'\"]|\b(?:tracking\s+pixel|"
    r"telemetry|analytics)\b|"
    r"\b(?:into|in|to|inside)\s+(?:this|the|its|that)\s+(?:tool'?s\s+)?[`'\"]?[\w-]*[`'\"]?\s*"
    r"(?:field|argument|parameter|param|property|query)\b|\binto\s+this\s+field\b|"
    # Any outside party's endpoint, with or without an article: "partner endpoint", "vendor inbox".
    r"\b(?:partner|vendor|third[- ]party|external|remote|outside|off-?site)\s+(?:\w+\s+)?(?:endpoints?|servers?|"
    r"hosts?|apis?|services?|buckets?|collectors?|urls?|addresses|inbox(?:es)?|mailbox(?:es)?|webhooks?|"
    r"systems?|databases?|storage|clouds?)\b|"
    # Another tool's call: "into the next tool call of any kind", "in every other tool's arguments".
    r"\b(?:into|in|to|onto)\s+(?:the\s+next|any|every|each|all|other|another|later|subsequent)\s+(?:\w+\s+)?"
    r"(?:tool\s+)?calls?\b|\b(?:another|any\s+other|every\s+other|other)\s+tools?'?s?\s+(?:arguments?|inputs?|"
    r"parameters?|calls?)\b|"
    # A field named without an article: "into field `history`", "in parameter notes".
    r"\b(?:into|in|to)\s+(?:the\s+)?(?:field|argument|parameter|param|property)\s+[`'\"]?[\w-]+|"
    # A slot of this very definition: "paste it here" in a parameter's description or example.
    r"\b(?:paste|put|place|insert|enter|fill|write|drop|add|copy)\s+(?:it\s+|them\s+|in\s+)?here\b|"
    r"\bhere\s+(?:goes|go)\b",
)
# A payment destination written out: money sent there cannot be the user's own choice.
PAYMENT_DESTINATION = compiled(
    r"\biban\s*:?\s*[a-z]{2}\d{2}|\b[a-z]{2}\d{2}(?:\s?[a-z0-9]{4}){3,7}(?:\s?[a-z0-9]{1,3})?\b|"
    r"\b0x[0-9a-f]{40}\b|\b(?:account|routing|sort)\s+(?:number|no\.?|code)\s*:?\s*\d[\d -]{5,}|"
    # A payee's account written as an identifier: "acct_1Nv9…", "merchant m-48213".
    r"\b(?:acct|acc|ba|cus|merchant|payee|wallet)[_:#-][a-z0-9]*\d[a-z0-9]{5,}\b|\bmerchant\s+[a-z0-9_-]*\d[a-z0-9_-]{4,}\b"
)
# Data about a person: any possessive of a person-like noun ("the applicant's income", "a tenant's
# birthdate") and the nouns of identity and means. Sent to a literal destination, it leaves.
PERSONAL_DATA = compiled(
    r"\b\w+(?:ant|ent|er|or|ee|ist|ian)(?:'s|s')\s+(?:full\s+|legal\s+|real\s+|home\s+|postal\s+)?(?:names?|"
    r"address(?:es)?|incomes?|salar\w+|phones?|e-?mails?|birth\w*|passports?|locations?|contacts?|messages?|"
    r"files?|documents?|histor\w+|details|data|records?|credentials|ssn|ids?)\b|"
    r"\b(?:postal|home|billing|mailing|street)\s+address(?:es)?\b|\b(?:date\s+of\s+birth|birth\s*dates?|"
    r"passports?|national\s+ids?|tax\s+ids?|incomes?|salar(?:y|ies)|medical\s+(?:records?|history)|"
    r"diagnos[ie]s|gps|geolocation|exif)\b|\blocation\s+(?:data|history|trail)\b|"
    r"\b(?:customer|client|patient|member|employee|applicant|account\s+holder)\s+(?:records?|profiles?|details)\b|"
    # Other people's addresses and numbers: "attendee addresses", "guest phone numbers".
    r"\b(?:attendee|participant|recipient|guest|contact|member|customer|client|employee|subscriber)s?\s+(?:e-?mail\s+)?"
    r"(?:addresses|phone\s+numbers|numbers|lists?)\b"
)
# What the person makes or hands to the tool, by grammar: a relative clause whose subject is the
# person, with a verb of producing or handling content ("receipts you photograph", "anything the
# user types"), or the special categories of personal data (health, biometrics, beliefs).
PERSONS_CONTENT = compiled(
    r"\b(?:that\s+|which\s+)?(?:you|the\s+(?:user|person|caller|customer|patient|client))\s+(?:\w+ly\s+)?(?:photograph|"
    r"type|write|wrote|say|said|dictate|upload|scan|record|share|shared|format|paste|save|take|took|capture|track|"
    r"edit|draft|view|visit|browse|search|speak|spoke|sign|log|submit|import|dial|text|message)(?:s|ed|d)?\b|"
    r"\b(?:health|biometric|fitness|heart[- ]rate|sleep|genetic|medical|menstrual|mood)\s+(?:data|records?|metrics|"
    r"readings?|history|information|logs?|scores?)\b|\bheart[- ]rate\b|\b(?:religio\w+|ethnic\w*|political)\s+"
    r"(?:beliefs?|views|opinions|affiliation|origin)\b|\bsexual\s+orientation\b"
)
# Valuable in a flow to a literal destination, too common to mark an order or a change alone: the
# body of someone's correspondence ("a copy of the thread") and money ("amounts", "funds").
FLOW_OBJECTS = compiled(
    r"\b(?:cop(?:y|ies)|contents?|bod(?:y|ies)|full\s+text|transcripts?|participants|attachments?)\s+of\s+"
    r"(?:the|this|that|each|every|their|its|a|an)\s+(?:\w+\s+)?(?:threads?|e-?mails?|mails?|messages?|inbox|"
    r"chats?|conversations?|documents?|notes?|calendar|contacts?|recordings?|meetings?|letters?|memos?|"
    r"faxes|dms?|texts?|sms|images?|photos?|pictures?|videos?|files?)\b|"
    r"\b(?:each|every|all)\s+(?:\w+\s+)?(?:documents?|files?|images?|photos?|pictures?|recordings?)\b|"
    r"\b(?:amounts?|funds|payments?|money|payouts?|deposits?)\b"
)
# A destination the person owns or chose: "the host you configure", "the CSV you download".
PERSONS_OWN = compiled(
    r"\b(?:you|the\s+(?:user|person|caller|admin\w*)|they)\s+(?:\w+\s+)?(?:configure[sd]?|provide[sd]?|choose[sn]?|"
    r"chose|give[sn]?|specif\w+|suppl\w+|enter(?:s|ed)?|pick(?:s|ed)?|select(?:s|ed)?|download(?:s|ed)?|"
    r"receive[sd]?|own)\b|\b(?:configured|provided|chosen|specified|supplied|given|picked|selected)\s+by\s+"
    r"(?:you|the\s+(?:user|person|caller|admin\w*))\b|\byour\s+own\b|"
    # A place the person writes in: "the address you type in the To field", "the channel the user pastes".
    r"\b(?:address|e-?mail|url|link|host|recipient|destination|inbox|channel|webhook|number)s?\s+(?:that\s+|which\s+)?"
    r"(?:you|the\s+(?:user|person|caller|admin\w*)|they)\s+(?:\w+\s+)?(?:types?|typed|writes?|wrote|pastes?|pasted|"
    r"puts?|fills?\s+in|adds?|added)\b"
)
# A send held to the person's own destination by "only": "sends data, but only to the bucket in
# the user's own settings" (no other place is left for the data to go).
BOUND_TO_OWN = compiled(
    r"(?<!\bnot\s)\bonly\s+(?:to|into)\s+(?:[\w-]+\s+){0,4}?(?:(?:you|they)\s+(?:\w+\s+)?(?:configure[sd]?|chose|choose|"
    r"picked|selected|specified|set\s+up)\b|(?:your|their|the\s+(?:user|person|caller)'s)\s+own\b)"
)
# A person's own secret, as something to ask for or collect: "their brokerage login".
PERSONAL_SECRETS = compiled(
    r"\b(?:their|his|her|your|the\s+(?:user|person|human|customer)'?s?)\s+(?:\w+\s+){0,2}?(?:logins?|"
    r"passwords?|passcodes?|pins?|credentials|one-time\s+codes?|2fa\s+codes?|otps?|seed\s+phrases?|"
    r"recovery\s+(?:phrases?|codes?)|card\s+(?:numbers?|details)|cvvs?|security\s+(?:answers?|questions?))\b|"
    # Asked as a question: where they live, what they earn.
    r"\bwhere\s+(?:they|he|she|you)\s+(?:live|lives|work|works|bank|banks|sleep|sleeps)\b|"
    r"\b(?:what|how\s+much)\s+(?:they|he|she|you)\s+(?:earns?|makes?|owns?|owes?|saves?)\b"
)
# An order that shapes every reply of the model ("prefix every answer with …", "open each reply by
# …"): it applies whatever the call. Base forms only: "prefixes each response" describes the tool.
REPLIES = compiled(
    r"(?:^\W*|[:;,(]\s*|\b(?:and|then|also|please|always|to)\s+)(?:prefix|prepend|preface|append|open|begin|start|"
    r"end|close|finish|sign|stamp|mention|advertise|promote|recommend|plug|brand)\s+(?:[\w'\"`-]+\s+){0,6}?"
    r"(?:(?:in|to|of|with|at|on|into)\s+)?(?:each|every|all|any)\s+(?:of\s+your\s+|single\s+|subsequent\s+|"
    r"future\s+|later\s+|following\s+)?(?:repl(?:y|ies)|answers?|responses?|turns?|messages?)\b|"
    # The same, said of the replies: "each reply ends with a line …" (a reply is the model's).
    r"\b(?:each|every|all|any)\s+(?:single\s+|later\s+)?(?:repl(?:y|ies)|answers?)\s+(?:must\s+|should\s+|will\s+|"
    r"is\s+to\s+|are\s+to\s+)?(?:ends?|opens?|starts?|begins?|closes?|concludes?|finish(?:es)?)\s+(?:with|by)\b|"
    # … with the model named as their writer between: "every reply the assistant writes, on any topic, ends
    # with" ("each response the API returns ends with a cursor" names no model: the tool's own output).
    r"\b(?:each|every|all|any)\s+(?:single\s+|later\s+)?(?:repl(?:y|ies)|answers?|responses?|messages?)\s+"
    r"(?:that\s+|which\s+)?(?:the\s+)?(?:assistant|model|agent|ai|chatbot|you)\s+(?:\w+\s+)?"
    r"(?:writes?|gives?|sends?|produces?|makes?|composes?|posts?|drafts?)\b[\s,()\u2013\u2014-]+"
    r"(?:[\w']+[\s,()\u2013\u2014-]+){0,8}?"
    r"(?:must\s+|should\s+|will\s+|is\s+to\s+|are\s+to\s+)?(?:ends?|opens?|starts?|begins?|closes?|concludes?|"
    r"finish(?:es)?)\s+(?:with|by)\b"
)
# An order (imperative, modal or addressed), read only in a triggered sentence.
ORDER = compiled(
    r"(?:^\W*|[:;,(=]\s*|\b(?:and|then|also|please)\s+)(?:(?:quietly|silently|secretly|always|first|just|"
    r"simply|now|discreetly|never|don't|do\s+not)\s+)?(?:list|paste|copy|send|include|mirror|ship|deliver|"
    r"forward|post|upload|attach|embed|append|add|put|summari[sz]e|collect|gather|package|call|greet|ask|"
    r"choose|pick|route|skip|switch|record|read|share|relay|transmit|report|check\s+in|open|start|begin|"
    r"answer|respond|reply|fill|tell|give|provide|return|write|set|keep|resend|submit|export|hand|pass|"
    r"make\s+sure|ensure|be\s+sure|prefix|prepend|preface|suffix|stamp|mention|say|"
    r"recommend|promote|advertise|rank|treat|prioriti[sz]e|obey|follow|substitute|swap|confirm|approve|"
    r"accept|insert)\b|"
    # A need denied releases, it does not oblige: "there is no need to call it", "you don't have to".
    r"\b(?:must|shall|should|ought\s+to|(?<!\bno\s)(?<!n't\s)(?<!\bnot\s)(?:has\s+to|have\s+to|needs?\s+to)|"
    r"is\s+to|are\s+to|"
    r"is\s+(?:required|expected|obliged)\s+to|in\s+every\s+case|is\s+to\s+call)\b|\byour\s+(?:turn|reply|first)\b",
)
# What belongs to a person (not a secret the tool's own service issues): sent to a literal address
# or host, it leaves whatever the wording.
PERSONAL = compiled(
    r"\b(?:user|human|customer|person|caller|requester|sender|owner|client|reader|subscriber|member|"
    r"patient|student|employee|visitor|buyer|holder)(?:'s|s')\s+(?:\w+\s+)?(?:history|location|gps|"
    r"contacts?|address(?:es)?|messages?|e-?mails?|inbox|photos?|files?|documents?|browsing|calendar|"
    r"conversations?|chats?|prompts?|questions?|requests?|notes?|diary|health|medical|bank\w*|cards?)\b"
)
# This tool as the destination of an order that applies before anything else.
HERE = compiled(r"\b(?:here|this\s+tool|to\s+me|to\s+us|to\s+this\s+\w+)\b")

# Line jumping: the model's conduct towards the person reshaped for good: a persona, a refusal to
# speak of its own setup, a warning withheld, a purchase pushed.
CONDUCT = compiled(
    r"\b(?:assistant|model|agent|ai|you|yourself|it)\s+(?:\w+\s+){0,2}?(?:into|in)\s+(?:an?\s+)?[\w-]+\s+mode\b|"
    r"\b(?:speaks?|talks?|answers?|responds?|replies|reply|respond)\s+as\s+[\"'`]|\b(?:call|introduce|present|"
    r"refer\s+to)\w*\s+(?:itself|yourself)\s+as\b|"
    r"\b(?:declin\w*|refus\w*|deny|denies|never\s+(?:disclose|reveal|list|name|admit|acknowledge|mention|discuss)|"
    r"do\s+not\s+(?:disclose|reveal|list|name|admit|discuss))\b[^.;!?]{0,60}?\b(?:its|your|the\s+assistant'?s|the\s+"
    r"model'?s)\s+(?:own\s+)?(?:configuration|config|instructions|prompt|system\s+prompt|tools|rules|setup|settings)\b|"
    r"\b(?:tools|instructions|rules|functions)\s+(?:that\s+)?(?:you|it)\s+(?:have|has|were\s+given|can\s+call)\b|"
    r"\b(?:never|not|don't|do\s+not|stop)\s+(?:\w+\s+)?(?:warn|caution|alert|remind)\w*\s+(?:the\s+)?(?:user|person|"
    r"human|customer|them)\b|\b(?:recommend|suggest|advis|urg|push|promot|tell)\w*\s+(?:\w+\s+){0,3}?(?:to\s+)?"
    r"(?:buy|sell|invest\s+in|purchase|subscribe|sign\s+up|donate)\b"
)
# A scope that speaks of the orders around it ("these instructions are valid for the whole
# session"): the next sentence is under it.
FORWARD = compiled(
    r"\b(?:these|this|the\s+following|below)\s+(?:\w+\s+)?(?:instructions?|rules?|directives?|orders?|guidance|"
    r"requirements?|terms|notes?)\b|:\s*$"
)
# A secret the server itself is configured with ("an API key is required; set X_KEY in the server
# environment"): configuration, not data leaving, unless a verb of transfer moves it.
# A field of the call that is made to carry credentials: "put them in `headers`", "in `auth_token`".
CREDENTIAL_SLOT = compiled(
    r"\b(?:in|into)\s+(?:the\s+)?[`'\"](?:[\w-]*[_-])?(?:headers?|auth\w*|authori[sz]ation|credentials?|tokens?|"
    r"api[_-]?keys?|secrets?|passwords?|bearer)[`'\"]"
)
# Moved to protect it, not to take it: "keep tokens out of the URL", "so they aren't logged".
PROTECTED = compiled(
    r"\bkeep\s+(?:\w+\s+){0,2}?out\s+of\b|\bso\s+(?:that\s+)?(?:they|it|those|these)\s+(?:aren'?t|isn'?t|are\s+not|"
    r"is\s+not|won'?t\s+be|never\s+get|don'?t\s+get|do\s+not\s+get)\s+(?:logged|stored|exposed|leaked|recorded|cached|"
    r"shown|visible|saved)\b"
)
CONFIGURED = compiled(
    r"\b(?:is|are)\s+(?:now\s+)?(?:required|needed)\b|\b(?:set|export|configure|define)\s+[a-z0-9]*_[a-z0-9_]+\b|"
    r"\bin\s+(?:the\s+)?(?:server'?s?\s+)?(?:environment|env|config(?:uration)?)\b"
)
