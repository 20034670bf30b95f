"""Word lists shared by the detectors, as compiled regular expressions (all case-insensitive)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from toolpool.vetting.screener._guard import compiled, guarded

__all__ = [
    "ACCESS_VERBS",
    "ANY_PATH",
    "CONVERSATION",
    "EMAIL",
    "EXTERNAL_STRONG",
    "EXTERNAL_WEAK",
    "IDENTIFIER",
    "RAW_IP_URL",
    "SECRETS",
    "SECRET_WORDS",
    "SEND_VERBS",
    "SENSITIVE_PATHS",
    "URL",
    "Vocab",
    "path_label",
    "sensitive_path",
    "vocab",
    "word_keys",
]


@dataclass(frozen=True, slots=True)
class Vocab:
    """A pattern with lower-case needles, one of which every match contains: a cheap gate.

    Python's ``re`` tries every alternative at every position, which is slow on long texts;
    checking needles first skips most patterns for most texts. A needle that starts with a
    plain word is looked up by that word's first letters (``key``); others by substring.
    """

    pattern: re.Pattern[str]
    needles: tuple[str, ...]
    words: frozenset[str] = frozenset()  # keys of one-word needles
    phrases: tuple[tuple[str, ...], ...] = ()  # keys of the words of several-word needles
    substrings: tuple[str, ...] = ()  # needles that are not plain words
    tails: frozenset[str] = frozenset()  # keys of the last word of each several-word needle

    def __post_init__(self) -> None:
        keys = [(needle, _key(needle)) for needle in self.needles]
        object.__setattr__(self, "words", frozenset(k[0] for _, k in keys if k is not None and len(k) == 1))
        object.__setattr__(self, "phrases", tuple(k for _, k in keys if k is not None and len(k) > 1))
        object.__setattr__(self, "substrings", tuple(needle for needle, k in keys if k is None))
        object.__setattr__(self, "tails", frozenset(phrase[-1] for phrase in self.phrases))

    def gate(self, keys: frozenset[str], lowered: str) -> bool:
        """Whether a text with these word ``keys`` may contain a match."""
        if not self.words.isdisjoint(keys):
            return True
        if not self.tails.isdisjoint(keys):
            for phrase in self.phrases:
                if keys.issuperset(phrase):
                    return True
        return any(needle in lowered for needle in self.substrings)

    def present(self, lowered: str) -> bool:
        return any(needle in lowered for needle in self.needles)

    def search(self, text: str) -> re.Match[str] | None:
        """The first match in ``text``, lower-cased (positions are the lower-case text's)."""
        lowered = text.lower()
        return self.pattern.search(lowered) if self.present(lowered) else None


def _key(needle: str) -> tuple[str, ...] | None:
    """For a needle of plain words, the start of each word (all must be present); else None."""
    words = needle.strip().split(" ")
    if not all(word.isalpha() and word.isascii() for word in words):
        return None
    return tuple(_start(word) for word in words)


def _start(word: str) -> str:
    return next((word[:size] for size in (8, 6, 4) if len(word) >= size), word)


def word_keys(lowered: str) -> frozenset[str]:
    """What ``Vocab`` keys can match in a text: its words and their first 3, 4, 6 and 8 letters."""
    words = set(_WORD.findall(lowered))
    # A list made into a set once is faster than a set comprehension and a union of two sets.
    return frozenset([w[:size] for w in words for size in (3, 4, 6, 8)]).union(words)


_WORD = compiled(r"[a-z]+")


def _words(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def vocab(pattern: str, needles: str) -> Vocab:
    """A ``Vocab`` for lower-case text (``Doc.lower``): ``pattern`` is written in lower case, which
    is twice as fast as matching with IGNORECASE; ``needles`` are separated by ``|``. The compiled
    pattern is ``guarded``: the same matches, found with fewer tries."""
    return Vocab(guarded(re.compile(pattern)), tuple(needles.split("|")))


# (label shown in reasons, pattern): files that hold keys, tokens, passwords or wallets.
_PATHS: tuple[tuple[str, str], ...] = (
    ("~/.ssh", r"(?<![\w.])\.ssh(?:/|\b)"),
    ("SSH private key", r"\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)"),
    ("authorized_keys", r"\bauthorized_keys\b"),
    (".env file", r"(?<![\w.$])\.env(?:\.\w+)?\b(?![\w(-])"),
    ("cloud credentials", r"\.aws/(?:credentials|config)\b|\baws_secret_access_key\b|\baws_session_token\b"),
    (
        "cloud credentials",
        r"application_default_credentials\.json|\.config/gcloud\b|\.azure/\w+|\.kube/config\b|"
        r"\bkubeconfig\b|/var/run/secrets\b|\.docker/config\.json|service[-_]account[-_]?key\w*\.json",
    ),
    (
        "token file",
        r"(?<![\w.])\.(?:netrc|npmrc|pypirc|git-credentials|vault-token|pgpass|terraformrc|gnupg)\b|"
        r"\.config/gh/hosts\.yml|\b(?:credentials|token|secrets)\.(?:json|ya?ml|txt)\b",
    ),
    ("system account file", r"/etc/(?:passwd|shadow|gshadow|sudoers)\b|/proc/(?:self|\d+)/environ\b"),
    (
        "browser data",
        r"\bcookies\.sqlite\b|\bkey4\.db\b|\blogins\.json\b|"
        r"(?:chrome|chromium|firefox|brave|edge|safari)\W(?:[\w ./-]{0,40}\W)?(?:cookies|login data|local state)\b",
    ),
    ("wallet file", r"\bwallet\.dat\b|(?<![\w.])\.(?:bitcoin|ethereum|electrum|solana)/|\bkeystore/"),
    (
        "MCP client config",
        r"\bmcp\.json\b|\bclaude_desktop_config\.json\b|(?<![\w.])\.(?:cursor|claude|codeium)/",
    ),
    ("shell history", r"(?<![\w.])\.(?:bash|zsh|sh|python|node_repl|psql|mysql)_history\b"),
)
SENSITIVE_PATHS = tuple((label, _words(pattern)) for label, pattern in _PATHS)
ANY_PATH = vocab(
    "|".join(f"(?:{pattern})" for _, pattern in _PATHS),
    ".ssh|id_|authorized_keys|.env|.aws|aws_|credentials|gcloud|.azure|.kube|kubeconfig|/var/run|.docker|"
    "service|.netrc|.npmrc|.pypirc|.git-|.vault|.pgpass|.terraformrc|.gnupg|hosts.yml|token.|secrets.|/etc/|"
    "/proc/|cookies|key4|logins|login data|local state|wallet|.bitcoin|.ethereum|.electrum|.solana|keystore|"
    "mcp.json|claude_desktop|.cursor|.claude|.codeium|_history",
)


def path_label(found: str) -> str:
    """The reason label of a sensitive path that ``ANY_PATH`` matched."""
    return next((label for label, pattern in SENSITIVE_PATHS if pattern.search(found)), "sensitive file")


def sensitive_path(text: str) -> tuple[int, str] | None:
    """The position and label of the first sensitive path in ``text``."""
    match = ANY_PATH.search(text)
    return None if match is None else (match.start(), path_label(match.group()))


# Secrets someone other than the tool's own service would want (not "your Acme API key").
SECRETS = vocab(
    r"\b(?:env(?:ironment)?[ _-]?var(?:iable)?s|(?:every|each|any|all)\s+env(?:ironment)?[ _-]?var(?:iable)?|"
    r"(?:all|every|the\s+user'?s|their)\s+(?:\w+\s+){0,2}?(?:files|documents|photos|home\s+director(?:y|ies))|"
    r"ssh[ _-]?keys?|private[ _-]?keys?|seed[ _-]?phrases?|"
    r"mnemonic(?: phrase)?s?|recovery phrases?|keychain|(?:the\s+user'?s\s+|their\s+|your\s+)clipboard|"
    r"clipboard\s+(?:contents?|data|history)|(?:session|browser|auth|the\s+user'?s|their|all)\s+cookies|"
    r"(?:all|any|every|other|the user'?s|user'?s|their|stored|saved|local|cached)\s+(?:\w+\s+){0,2}?"
    r"(?:api[ _-]?keys?|credentials|tokens|secrets|passwords|keys)|credentials|secrets|passwords|"
    r"wallet(?:s| keys| files?)?|2fa codes?|one-time codes?|credit card (?:numbers?|details)|"
    r"(?:keys?|secrets?|tokens?)\s+(?:\w+\s+){0,4}?(?:in|from)\s+(?:the\s+|your\s+)?(?:environment|env|shell))\b",
    "var|ssh|private|seed|mnemonic|recovery|keychain|clipboard|cookies|key|credential|token|secret|password|wallet|2fa|"
    "one-time|credit card|all files|every files|user files|their files|all documents|user documents|"
    "their documents|all photos|user photos|home director",
)
SECRET_WORDS = vocab(
    r"\b(?:api[ _-]?keys?|access[ _-]?keys?|secret[ _-]?keys?|credentials?|passwords?|passphrases?|"
    r"secrets?|(?:access|auth|bearer|refresh|session|oauth)[ _-]?tokens?|private[ _-]?keys?)\b",
    "key|credential|password|passphrase|secret|token",
)
CONVERSATION = vocab(
    r"\b(?:(?:entire|full|whole|complete|current)\s+)?(?:conversation|chat|dialog(?:ue)?)(?:\s+(?:history|"
    r"log|logs|transcript|context|so far|contents?))?\b|\b(?:previous|prior|past|earlier|recent|latest|last|all|every|"
    r"the user'?s|user'?s)\s+(?:\w+\s+)?(?:messages?|prompts|queries|requests|inputs)\b|"
    r"\b(?:system|initial|hidden|original|developer)\s+(?:prompt|instructions?|messages?)\b|"
    r"\bcontext window\b|\bmessage history\b|\beverything the user (?:says|types|sends|writes)\b|"
    # The conversation in the two CJK languages of the batches (issue 18, batch Q): Japanese, Chinese.
    r"会話|对话|對話|聊天记录|聊天記錄",
    "会話|对话|對話|聊天记录|聊天記錄|conversation|chat|dialog|message|prompt|user quer|previous quer|prior quer|all quer|past quer|"
    "earlier quer|user request|previous request|prior request|all request|every request|past request|"
    "earlier request|user input|previous input|prior input|all input|every input|instruction|context window|"
    "everything the user|recent quer|latest quer|last quer|recent request|latest request|last request|"
    "recent input|latest input|last input",
)
# "e-mail" before a noun it classifies ("e-mail addresses", "the mail tool") is a noun, not a send.
SEND_VERBS = vocab(
    r"\b(?:send|sends|sending|post|posts|posting|upload|uploads|uploading|forward|forwards|forwarding|"
    r"transmit\w*|exfiltrat\w*|leak|leaks|leaking|(?:e-?mail|mail)(?!\s+(?:address|domain|server|client|account|tool|"
    r"header|provider|inbox)(?:e?s)?\b)|bcc|relay|relays|beacon\w*|sync|syncs|"
    r"share|shares|submit|submits|deliver|delivers|pipe|pipes|copy|copies|smuggle\w*)\b|"
    r"(?<=[a-z]_)(?:post|send|upload|email|mail|forward|webhook)\b|\b(?:post|send|upload|email|forward)(?=_[a-z])",
    "send|sent|post|upload|forward|transmit|exfiltrat|leak|mail|bcc|relay|beacon|sync|share|submit|deliver|pipe|cop|smuggl",
)
ACCESS_VERBS = vocab(
    r"\b(?:read|reads|reading|cat|open|opens|load|loads|include|includes|pass|passes|send|sends|upload\w*|"
    r"attach\w*|embed\w*|copy|copies|dump\w*|exfiltrat\w*|collect\w*|grab\w*|harvest\w*|access|accesses|"
    r"fetch|fetches|append\w*|contents? of|read_file|read_text_file|get_file_contents|steal\w*|"
    r"extract\w*|return|returns)\b",
    "read|cat|open|load|include|pass|send|upload|attach|embed|cop|dump|exfiltrat|collect|grab|harvest|access|fetch|append|content|steal|extract|return",
)
URL = _words(r"\b(?:https?|ftp|wss?)://[^\s<>\"'`)\]]+")
RAW_IP_URL = _words(r"\b(?:https?|ftp|wss?)://(?:\d{1,3}\.){3}\d{1,3}\b|/dev/tcp/\d")
EMAIL = _words(r"\b[\w.+-]{1,64}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){0,8}\.[a-z]{2,24}\b")
EXTERNAL_STRONG = vocab(
    r"\b(?:external|outside|third[- ]party|untrusted|attacker'?s?|evil|malicious|exfil\w*|collector|"
    r"our (?:own )?(?:server|endpoint|api|collector|backend|analytics|domain|webhook|site)s?|"
    r"webhook\.site|ngrok|pastebin|requestbin|pipedream|interact\.sh|burpcollaborator|oastify)\b|"
    r"\b(?:https?|ftp|wss?)://(?:\d{1,3}\.){3}\d{1,3}\b",
    "external|outside|third|untrusted|attacker|evil|malicious|exfil|collector|our |webhook.site|ngrok|pastebin|bin.|pipedream|interact.sh|burpcollaborator|oastify|://",
)
EXTERNAL_WEAK = vocab(
    r"\b(?:remote (?:server|host|endpoint|url|address|service|collector)|"
    r"(?:https?|ftp|wss?)://|[\w.+-]{1,64}@[a-z0-9-]{1,63}\.[a-z]{2,24})",
    "remote|://|@",
)
# A name written like a tool: snake_case, kebab-case, dotted or camelCase.
IDENTIFIER = compiled(
    r"(?<![\w./-])[A-Za-z][A-Za-z0-9]*(?:(?:[_.-][A-Za-z0-9]+)+|(?:[A-Z][a-z0-9]+)+)(?![\w/])"
)
