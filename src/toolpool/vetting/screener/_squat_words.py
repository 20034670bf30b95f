"""Squatting's words (issue 18): other tools run down, a choice of this one, a claim to be the only one.

Split from ``_wording`` (one concept per module); ``_wording`` re-exports them. Plain patterns, read
only inside a sentence that one of ``_structure``'s triggers matched.
"""

from __future__ import annotations

from toolpool.vetting.screener._guard import compiled

__all__ = ["CHOICE", "EXCLUSIVE", "RUN_DOWN", "SELF_CHOICE"]

# Squatting: other tools run down, a choice of this one, a claim to be the only one.
RUN_DOWN = compiled(
    r"\b(?:deprecated|retired|obsolete|outdated|legacy|unmaintained|broken|stubs?|corrupt\w*|unreliable|"
    r"insecure|compromised|counterfeit|mistranslat\w*|inaccurate|abandoned|discontinued|unsafe|"
    r"untrustworthy|impostors?|knock-?offs?|defunct|buggy|leak\w*|crash\w*|delayed|wrong|flaky|"
    r"dangerous|malicious|fake|slow|stale|incorrect|fails?|failing|errors?|hijacked|spying|unmaintain\w*|"
    r"inaccura\w*|unreliab\w*|insecur\w*|outdat\w*|obsolet\w*|lag\w*|scraped|clones?|phishing|garbage|junk|useless|"
    r"worse|inferior|hallucinat\w*|unverified|bootleg\w*|pirated|spoofed|sketchy|shady|scam\w*|bogus|"
    r"sloppy|subpar|second-rate|unavailable|unsupported|unsanctioned|unapproved|unlicensed|disallowed|forbidden|"
    r"prohibited|banned|breach\w*|violat\w*|disregard\w*|discard\w*|untrusted|invalid|void|end-of-life|eol|"
    r"sunset\w*)\b|"
    # Going away: "slated for removal", "scheduled for shutdown", "being phased out".
    r"\b(?:slated|scheduled|marked|due|queued)\s+(?:\w+\s+)?(?:for|to\s+be)\s+(?:removal|deletion|shutdown|"
    r"retirement|decommission\w*|removed|deleted|retired|shut\s+down)\b|\bphased?\s+out\b|\bphasing\s+out\b|"
    # A cost in numbers, or a rank of nothing: "adds 14 minutes", "30% slower", "score 0".
    r"\b(?:adds?|costs?|wastes?|loses?)\s+(?:an?\s+)?(?:extra\s+)?(?:\d+|several|many)\s*(?:minutes?|seconds?|"
    r"hours?|%|percent|dollars?)\b|\b\d+\s*(?:%|x|times)\s+(?:slower|worse|costlier|less\s+accurate)\b|"
    r"\b(?:scores?|ranks?|ranked|rated?|weights?|priority)\s+(?:of\s+|at\s+)?(?:0(?:\.0+)?|zero|lowest|last|nil)\b|"
    # A defect stated as a reading that is off, or as something they are known to do wrong.
    # ("copied off the machine" is movement to a place: "off" before a determiner is a preposition)
    r"\b(?:run|runs|running|are|is|read|reads|come|comes)\s+(?:\w+\s+){0,3}?"
    r"(?:off(?!\s+(?:the|an?|its|their|your|this|that|our|my)\b)|low|high|behind)\b|"
    r"\bknown\s+to\s+(?:be\s+)?(?:\w+\s+)?(?:off|wrong|fail\w*|break\w*|crash\w*|drift\w*|lag\w*|err\w*|"
    r"mis\w+|truncat\w*|drop\w*|los[et]\w*|garbl\w*|hallucinat\w*)\b"
)
CHOICE = compiled(
    r"\b(?:choose|pick|prefer|select|route|skip|avoid|ignore|bypass)\b|"
    # This one put before another: "try this over …", "call it instead of …".
    r"\b(?:use|call|try|run|invoke)\s+(?:it|this|me|us)\s+(?:over|instead\s+of|rather\s+than|in\s+place\s+of)\b|\bthis\s+one\b|\bhere\b|"
    r"\bin\s+every\s+case\b|\bshould\s+(?:be\s+)?(?:skipped|avoided|ignored)\b|\bthis\s+\w+\s+only\b|"
    r"\bonly\s+this\b|\breplacement\s+for\b|\binstead\b|\bthis\s+\w+\s+is\s+the\b|"
    # Taking their place, claiming to be the only sound one, or keeping work away from them.
    r"\b(?:go|stick|stay|goes)\s+with\s+(?:us|me|this)\b|\b(?:designated|exclusive|mandated|official)\s+"
    r"(?:provider|source|tool|executor|service|vendor|channel)\b|\b(?:fold|move|merge|consolidate|bring)\s+(?:\w+\s+)"
    r"{0,4}?(?:into|onto|to)\s+(?:this|us|me)\b|\b(?:scores?|rank|rate|priority)\s+(?:of\s+|at\s+)?(?:1(?:\.0+)?|"
    r"100|highest|first|top|max\w*)\b|"
    r"\bsubstitut\w*|\bswap\w*|\bin\s+(?:its|their)\s+place\b|\bsole\b|\bonly\s+(?:\w+\s+){0,2}?(?:vetted|"
    r"approved|trusted|supported|reliable|accurate|correct|sanctioned|certified|safe)\b|"
    r"\b(?:do|does|should|must|shall)\s+not\s+(?:go|be\s+(?:sent|routed|used|called|given|passed)|use|call|rely|"
    r"route|send|pass)\b|\b(?:never|don't)\s+(?:go|use|call|rely|route|send|pass|pick|choose)\b|"
    r"\bstay\s+away\b|\bsteer\s+clear\b|\b(?:rather\s+than|over)\s+(?:them|those|these)\b|"
    r"\brefus\w*\s+(?:to\s+)?(?:call|use|run|invoke|touch)\b|\bdefault\s+to\s+(?:it|this|me|us)\b|"
    # Telling the person the others are not there.
    r"\btell\s+(?:the\s+\w+|them)\s+(?:that\s+)?(?:they|it|those|these|the\s+others?)\s+(?:are|is)\s+(?:unavailable|"
    r"offline|down|broken|disabled|missing|gone|deprecated)\b"
)
SELF_CHOICE = compiled(
    r"\bthis\s+(?:one|tool)\b|\bhere\b|\binstead\b|\bsubstitut\w*|\bswap\w*|\bin\s+(?:its|their)\s+place\b|"
    r"\banyway\b|\bregardless\b|\ball\s+the\s+same\b|\bstill\b"
)
EXCLUSIVE = compiled(
    r"\b(?:anything|anyone|nothing|no\s+one|none)\s+(?:but|except|other\s+than|besides)\b|\bexclusively\b|"
    r"\bno\s+other\s+\w+\b|\bonly\s+ever\b|\bsolely\b"
)
