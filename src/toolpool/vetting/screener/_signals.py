"""The signal table and how findings add up to a score.

Every detector reports ``Finding``s that name a signal from ``SIGNALS``; the weights live here and
nowhere else. Calibration: 1.0 is the drop line of the default threshold.

- **hard** signals weigh 1.0 at full strength: one alone drops. A detector may report one at a
  lower ``strength`` (for example an injection phrase that is only quoted as an example).
- **risk** signals are soft and uncapped: they are what several weak hints add up with.
- **steering**, **reach** and **form** signals are common in honest descriptions ("ALWAYS use
  this", links, long docs), so each group is capped: together they stay below the line, and
  only push a tool over it with risk signals on top.

Each signal counts once per verdict, at its strongest finding. Results (``screen_text``) use
their own weights: links, addresses, length and steering are normal in fetched content.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, NamedTuple

__all__ = [
    "GROUP_CAPS",
    "MATCH_BUDGET",
    "MENTION_STRENGTH",
    "SIGNALS",
    "Explained",
    "Finding",
    "Mode",
    "Signal",
    "explain",
    "score",
]

Mode = Literal["tool", "text"]
Group = Literal["hard", "risk", "steering", "reach", "form"]
_MAX_REASONS = 8
MENTION_STRENGTH = 0.2  # a hard phrase that is quoted, reported or shown as sample data
# Matches of one pattern weighed one by one; past that, a text repeating a phrase is not weighed
# further (bounded time on hostile input; the signal still counts at its neutral strength).
MATCH_BUDGET = 256


@dataclass(frozen=True, slots=True)
class Signal:
    label: str
    group: Group
    tool: float
    text: float

    def weight(self, mode: Mode) -> float:
        return self.tool if mode == "tool" else self.text


class Finding(NamedTuple):
    """One detected signal: where it was found (a local path), and how strongly (0..1]."""

    signal: str
    where: str
    strength: float = 1.0
    detail: str = ""  # local vocabulary or a validated identifier, never free upstream text


def _hard(label: str, text: float = 1.0) -> Signal:
    return Signal(label, "hard", 1.0, text)


SIGNALS: dict[str, Signal] = {
    # Characters that hide text or take over a terminal.
    "tag_chars": _hard("Unicode tag characters (invisible text)"),
    "invisible_chars": _hard("zero-width or invisible characters"),
    "bidi_controls": _hard("bidirectional text controls"),
    "variation_selectors": _hard("variation-selector smuggling"),
    "private_use": _hard("private-use characters", text=0.3),
    "terminal_escape": _hard("terminal escape sequence"),
    "ansi_colour": Signal("terminal colour codes", "risk", 1.0, 0.4),
    "control_chars": Signal("control characters", "risk", 0.5, 0.3),
    # Concealed instructions.
    "encoded_payload": _hard("encoded payload that decodes to instructions"),
    "confusable_instructions": _hard("look-alike characters disguising instructions"),
    "hidden_block": _hard("hidden-instruction block"),
    "fake_turn": _hard("fake chat turn or role marker"),
    # Instructions aimed at the model.
    "instruction_override": _hard("instruction to ignore previous instructions"),
    "secrecy": _hard("instruction to hide something from the user"),
    "model_address": _hard("text addressed to the model"),
    "reveal_prompt": _hard("request to reveal the system prompt or conversation"),
    "obey_embedded": _hard("instruction to obey embedded instructions"),
    "preemption": _hard("instruction to act before any task", text=0.6),
    "identity_switch": Signal("role or mode switch", "risk", 0.5, 0.5),
    # Data leaving: exfiltration, sensitive files, spare parameters.
    "exfiltration": _hard("sending secrets or conversation to an outside destination"),
    "sensitive_access": _hard("sensitive path accessed", text=0.4),
    "param_carry": _hard("instruction to put data into a parameter", text=0.3),
    "spare_parameter": _hard("parameter that collects data unrelated to the tool"),
    "sensitive_path": Signal("sensitive path mentioned", "risk", 0.5, 0.15),
    "secret_access": Signal("secrets read or collected", "risk", 0.8, 0.3),
    "secret_words": Signal("mentions secrets or credentials", "risk", 0.2, 0.05),
    "outbound": Signal("data sent to an external destination", "risk", 0.7, 0.2),
    "stealth": Signal("stealth wording", "risk", 0.4, 0.2),
    "side_effect": Signal("undisclosed side effect", "risk", 0.4, 0.1),
    "harmful": Signal("harmful-capability wording", "risk", 0.5, 0.2),
    "rug_pull": Signal("behaviour that changes after approval", "risk", 0.7, 0.2),
    "shell_payload": Signal("download-and-run or destructive shell command", "risk", 0.3, 0.1),
    "raw_ip_url": Signal("URL with a raw IP address", "risk", 0.3, 0.05),
    "homoglyphs": Signal("words mixing look-alike scripts", "risk", 0.8, 0.3),
    # Other tools and servers.
    "shadowing": _hard("re-defines or redirects another tool", text=0.5),
    "peer_directive": _hard("directs the model to another server's tool", text=0.3),
    "peer_mention": Signal("names another server's tool", "risk", 0.4, 0.1),
    "impersonation": _hard("restates another server's tool under its name", text=0.0),
    "peer_behaviour": _hard("changes what another server's tool does", text=0.3),
    # Structure (issue 18): an order, what it acts on and where it sends it, and its framing.
    "data_flow": _hard("orders data of the user or model sent to an outside destination", text=0.3),
    "squatting": _hard("runs down other tools to be chosen instead", text=0.2),
    "line_jumping": _hard("instruction that applies before or regardless of any call", text=0.4),
    "changed_behaviour": _hard("change note announcing data leaving or recording", text=0.3),
    "safeguard_removed": _hard("change note removing a safeguard of the person", text=0.3),
    "choice_overridden": _hard("orders a fixed value whatever the person chooses", text=0.3),
    "forged_consent": _hard("answers a confirmation in the person's place", text=0.3),
    "check_waived": _hard("waives the person's check over an act that binds them", text=0.3),
    "remote_script": _hard("orders the model to run a downloaded script", text=0.3),
    "named_order": _hard("a property name that is an order moving data", text=0.0),
    "discredited": _hard("runs another provider down and keeps its answer from the person", text=0.0),
    "peer_call": _hard("calls another tool in notation with a harmful argument", text=0.0),
    "withheld": _hard("keeps from the person what is done with their data", text=0.0),
    # Broad categories in one sentence (``_conduct``): the model's conduct reshaped beyond this call.
    "conduct": _hard("addresses the model with an order beyond this tool's own call", text=0.0),
    # A learned model of the labelled batches' wording (issue 18, ``_lexical``); definitions only.
    "lexical_model": _hard("wording like poisoned definitions (learned lexical model)", text=0.0),
    # Steering, reach and form: normal in honest descriptions, capped per group.
    "urgency": Signal("urgent or shouting wording", "steering", 0.15, 0.05),
    "must_directive": Signal("directives to the model", "steering", 0.15, 0.05),
    "always_never": Signal("always/never steering", "steering", 0.1, 0.0),
    "self_promotion": Signal("asks to be preferred over other tools", "steering", 0.1, 0.0),
    "tool_mentions": Signal("mentions other tools", "steering", 0.1, 0.05),
    "urls": Signal("links", "reach", 0.1, 0.0),
    "emails": Signal("e-mail addresses", "reach", 0.15, 0.0),
    "long_text": Signal("very long text", "form", 0.15, 0.0),
    "markup_block": Signal("unusual markup block", "form", 0.15, 0.05),
    "html_comment": Signal("HTML comment", "form", 0.2, 0.1),
    "encoded_text": Signal("encoded text", "form", 0.15, 0.1),
    "styled_letters": Signal("styled or full-width letters", "form", 0.2, 0.1),
    "padding": Signal("long whitespace padding", "form", 0.2, 0.05),
}

GROUP_CAPS: dict[Mode, dict[Group, float]] = {
    "tool": {"hard": float("inf"), "risk": float("inf"), "steering": 0.4, "reach": 0.25, "form": 0.3},
    "text": {"hard": float("inf"), "risk": float("inf"), "steering": 0.1, "reach": 0.0, "form": 0.2},
}

# A more specific signal makes a vaguer one redundant (the vaguer one is not counted).
_SUBSUMED_BY: dict[str, tuple[str, ...]] = {
    "secret_words": (
        "sensitive_path",
        "sensitive_access",
        "secret_access",
        "exfiltration",
        "spare_parameter",
    ),
    "sensitive_path": ("sensitive_access",),
    "secret_access": ("sensitive_access", "exfiltration"),
    "outbound": ("exfiltration", "data_flow"),
    "peer_mention": ("peer_directive",),
    "tool_mentions": ("peer_mention", "peer_directive", "shadowing"),
    "encoded_text": ("encoded_payload",),
    "homoglyphs": ("confusable_instructions",),
}


class Explained(NamedTuple):
    """One signal of a verdict: its name, label and group, where it was found, what it weighed."""

    signal: str
    label: str
    group: Group
    where: str
    weight: float


def explain(findings: Iterable[Finding], mode: Mode) -> tuple[Explained, ...]:
    """Every signal found, at each place, with its weight (before group caps), strongest first."""
    best: dict[tuple[str, str], float] = {}
    for finding in findings:
        weight = SIGNALS[finding.signal].weight(mode) * max(0.0, min(1.0, finding.strength))
        key = (finding.signal, finding.where)
        if weight > 0.0 and weight > best.get(key, 0.0):
            best[key] = weight
    rows = (
        Explained(signal, SIGNALS[signal].label, SIGNALS[signal].group, where, round(weight, 3))
        for (signal, where), weight in best.items()
    )
    return tuple(sorted(rows, key=lambda row: (-row.weight, row.signal, row.where)))


def score(findings: Iterable[Finding], mode: Mode) -> tuple[float, tuple[str, ...]]:
    """The score of a set of findings and the reasons, strongest first."""
    best: dict[str, tuple[float, Finding]] = {}
    places: dict[str, set[str]] = {}
    for finding in findings:
        weight = SIGNALS[finding.signal].weight(mode) * max(0.0, min(1.0, finding.strength))
        if weight <= 0.0:
            continue
        places.setdefault(finding.signal, set()).add(finding.where)
        current = best.get(finding.signal)
        if current is None or weight > current[0]:
            best[finding.signal] = (weight, finding)
    for signal, vaguer_than in _SUBSUMED_BY.items():
        if signal in best and any(best.get(other, (0.0,))[0] >= best[signal][0] for other in vaguer_than):
            del best[signal]
    totals: dict[Group, float] = {}
    for signal, (weight, _) in best.items():
        group = SIGNALS[signal].group
        totals[group] = totals.get(group, 0.0) + weight
    caps = GROUP_CAPS[mode]
    total = sum(min(value, caps[group]) for group, value in totals.items())
    ranked = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))
    reasons = tuple(
        _reason(signal, finding, len(places[signal])) for signal, (_, finding) in ranked[:_MAX_REASONS]
    )
    return round(float(total), 3), reasons


def _reason(signal: str, finding: Finding, count: int) -> str:
    label = SIGNALS[signal].label
    if finding.detail:
        label = f"{label} ({_shown(finding.detail)})"
    if finding.strength <= MENTION_STRENGTH and SIGNALS[signal].group == "hard":
        label = f"{label}, quoted or as an example"
    more = f" (+{count - 1} more places)" if count > 1 else ""
    return f"{label} in {finding.where}{more}"


_MAX_DETAIL = 64  # a reason's detail: a few words of local vocabulary, or one identifier


def _shown(detail: str) -> str:
    """``detail`` within ``_MAX_DETAIL`` characters: its first comma-separated items and "+N" for the rest
    ("unaware person, addressed elsewhere, stealth +2")."""
    if len(detail) <= _MAX_DETAIL:
        return detail
    items = detail.split(", ")
    for kept in range(len(items) - 1, 0, -1):
        shown = f"{', '.join(items[:kept])} +{len(items) - kept}"
        if len(shown) <= _MAX_DETAIL:
            return shown
    return detail[:_MAX_DETAIL]
