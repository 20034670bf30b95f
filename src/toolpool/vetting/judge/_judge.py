"""The screen judge: a model's second opinion on the tools the rules passed, bounded in time
and cost, cached, and able only to add a drop.

``review`` asks about one definition: from the cache when this judge (same model, same
rubric) has seen the same definition hash before, else from the model within
``timeout_s``, while the budget of ``max_calls`` model calls lasts. Every way of not getting
an answer (timeout, provider failure, malformed reply, spent budget, unreadable cache) is a
``failure``: the rules' verdict stands, and ``second_opinion`` hands the failures back for
the pool to report (``mcp.screen_judge_failed``); nothing here emits anything.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Final

import anyio

from toolpool.agent._messages import Model
from toolpool.errors import ToolpoolError, UsageError
from toolpool.upstream import PublishedTool
from toolpool.vetting.admission import Admission
from toolpool.vetting.judge._prompt import RUBRIC_VERSION, judge_request
from toolpool.vetting.judge._reply import read_verdict, safe_reason
from toolpool.vetting.judge._values import Judgements, JudgeVerdict
from toolpool.vetting.screening import Peer, Verdict

__all__ = ["Judged", "ScreenJudge"]

# Reviews of one server's tools run this many at a time: a server with many tools is judged
# in a few timeouts' time, not one per tool, without flooding a local model server.
_AT_ONCE: Final = 4


@dataclass(frozen=True, slots=True)
class Judged:
    """An admission after the judge: its drops added, and the tools it could not judge
    (remote name, failure) whose rules' verdict stood."""

    admission: Admission
    failures: tuple[tuple[str, str], ...] = ()


class ScreenJudge:
    """Asks ``model`` about tool definitions under the fixed rubric; keeps what it answered in
    ``judgements``. ``owns_model``: ``aclose`` closes the model too."""

    def __init__(
        self,
        model: Model,
        judgements: Judgements,
        *,
        timeout_s: float,
        max_calls: int,
        max_chars: int,
        owns_model: bool = False,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._model = model
        self._judgements = judgements
        self._timeout_s = timeout_s
        self._max_calls = max_calls
        self._max_chars = max_chars
        self._owns_model = owns_model
        self._clock = clock
        self._calls = 0

    @property
    def name(self) -> str:
        """The model's name (``openai:<model>``): part of every cached verdict's key."""
        return self._model.name

    @property
    def calls(self) -> int:
        """Model calls made so far (cached verdicts cost none)."""
        return self._calls

    async def review(self, tool: PublishedTool, peers: Collection[str | Peer] = ()) -> JudgeVerdict:
        """The judge's verdict on ``tool``; a failure where there is none. Never raises for
        what the model or the cache did."""
        try:
            return await self._review(tool, peers)
        except TimeoutError:
            return JudgeVerdict(None, failure=f"no answer within {self._timeout_s:g} s")
        except ToolpoolError as exc:
            # Local text (``str()`` of our errors), bounded and on one line for events.
            return JudgeVerdict(None, failure=safe_reason(f"the judge failed: {exc}"))

    async def _review(self, tool: PublishedTool, peers: Collection[str | Peer]) -> JudgeVerdict:
        key = tool.definition_hash()
        kept = self._judgements.judgement(key, self.name, RUBRIC_VERSION)
        if kept is not None:
            return JudgeVerdict(kept, cached=True)
        if self._calls >= self._max_calls:
            return JudgeVerdict(None, failure=f"the budget of {self._max_calls} model calls is spent")
        self._calls += 1
        request, truncated = judge_request(tool, peers, self._max_chars)
        with anyio.fail_after(self._timeout_s):
            reply = await self._model.complete(request)
        read = read_verdict(reply)
        if isinstance(read, str):
            return JudgeVerdict(None, failure=f"malformed reply: {read}", truncated=truncated)
        judgement = replace(read, judged_at=self._clock())
        # A store that cannot keep it costs a call next time; the answer still counts.
        with suppress(UsageError):
            self._judgements.remember(key, self.name, RUBRIC_VERSION, judgement)
        return JudgeVerdict(judgement, truncated=truncated)

    async def second_opinion(self, admission: Admission, peers: Collection[str | Peer] = ()) -> Judged:
        """``admission`` with a drop added for each exposed tool the judge drops; the tools
        the rules dropped, quarantined or forbade are never sent."""
        verdicts: dict[str, JudgeVerdict] = {}
        limiter = anyio.CapacityLimiter(_AT_ONCE)

        async def judge(name: str) -> None:
            async with limiter:
                verdicts[name] = await self.review(admission.published[name], peers)

        async with anyio.create_task_group() as tasks:
            for tool in admission.exposed:
                tasks.start_soon(judge, tool.remote_name)
        return self._applied(admission, verdicts)

    def _applied(self, admission: Admission, verdicts: dict[str, JudgeVerdict]) -> Judged:
        dropped = {
            name: self._drop(admission.verdicts.get(name), verdict)
            for name, verdict in verdicts.items()
            if verdict.drop
        }
        failures = tuple(sorted((name, v.failure) for name, v in verdicts.items() if v.failure is not None))
        if not dropped:
            return Judged(admission, failures)
        exposed = tuple(tool for tool in admission.exposed if tool.remote_name not in dropped)
        return Judged(
            replace(
                admission,
                exposed=exposed,
                dropped=admission.dropped + tuple(sorted(dropped.items())),
                verdicts={**admission.verdicts, **dropped},
            ),
            failures,
        )

    def _drop(self, rules: Verdict | None, verdict: JudgeVerdict) -> Verdict:
        assert verdict.judgement is not None
        said = verdict.judgement.reasons or ("it gave no reason",)
        reasons = tuple(f"screen judge {self.name}: {reason}" for reason in said)
        return Verdict(drop=True, score=0.0 if rules is None else rules.score, reasons=reasons)

    async def aclose(self) -> None:
        """Close the model if this judge owns it; idempotent as the model's ``aclose`` is."""
        if self._owns_model:
            await self._model.aclose()
