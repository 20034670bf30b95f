"""The screen judge: an optional second opinion by a model on the tools the screener passed.

Off unless ``[pool] screen_judge`` names a model (``openai:<model>`` or ``anthropic:<model>``,
through ``toolpool.agent.models``). The judge is shown each definition as quoted data under a
fixed rubric (``RUBRIC``), answers a structured verdict, and can only *add* a drop: a tool the
rules dropped is never sent, and a timeout, an error, a malformed reply or a spent budget leave
the rules' verdict standing (the pool then emits ``mcp.screen_judge_failed``). Verdicts are
cached by definition hash, judge and rubric version (in the store, ``screen_judgements``).

Names are imported from their modules when first used (``toolpool._lazy``): the store imports
``Judgement`` without paying for the agent runtime.
"""

from typing import TYPE_CHECKING

from toolpool._lazy import lazy_names

if TYPE_CHECKING:
    from toolpool.vetting.judge._build import judge_model
    from toolpool.vetting.judge._judge import Judged, ScreenJudge
    from toolpool.vetting.judge._prompt import OPEN_QUOTE, RUBRIC, RUBRIC_VERSION, SHUT_QUOTE, judge_request
    from toolpool.vetting.judge._reply import read_verdict
    from toolpool.vetting.judge._values import Judgement, Judgements, JudgeVerdict, MemoryJudgements

_HOMES: dict[str, tuple[str, ...]] = {
    "toolpool.vetting.judge._build": ("judge_model",),
    "toolpool.vetting.judge._judge": ("Judged", "ScreenJudge"),
    "toolpool.vetting.judge._prompt": (
        "OPEN_QUOTE",
        "RUBRIC",
        "RUBRIC_VERSION",
        "SHUT_QUOTE",
        "judge_request",
    ),
    "toolpool.vetting.judge._reply": ("read_verdict",),
    "toolpool.vetting.judge._values": ("JudgeVerdict", "Judgement", "Judgements", "MemoryJudgements"),
}

__all__ = [
    "OPEN_QUOTE",
    "RUBRIC",
    "RUBRIC_VERSION",
    "SHUT_QUOTE",
    "JudgeVerdict",
    "Judged",
    "Judgement",
    "Judgements",
    "MemoryJudgements",
    "ScreenJudge",
    "judge_model",
    "judge_request",
    "read_verdict",
]

__getattr__, __dir__ = lazy_names(__name__, _HOMES, globals())
