"""The call pipeline and everything a call carries through it: gates 1-10 (``CallPipeline``),
the ``Envelope``, result shaping and blobs, the circuit breakers, approvals of single calls,
taint, sessions, the snapshots a session sees, the limits gate (``Limits``, in process or in
Redis), revocation on faults, pool events and gate-10 recording.

The one ``Redactor`` lives in ``toolpool.redaction`` (the store uses it too, below this package)
and is exported here as well.
"""

from toolpool.calls._approvals import CallApprovals
from toolpool.calls._arguments import MAX_ARGUMENT_DEPTH, argument_problems, render_resource
from toolpool.calls._breaker import Breakers, BreakerState, CircuitBreaker
from toolpool.calls._envelope import Envelope, refusal, shown, upstream_failure
from toolpool.calls._events import EventOutlet
from toolpool.calls._limit_plan import limits_anything
from toolpool.calls._limits import Limits, Permit
from toolpool.calls._limits_redis import RedisState
from toolpool.calls._pipeline import CallPipeline, PipelineSession
from toolpool.calls._quotas import QuotaStanding, quota_standings
from toolpool.calls._recording import CallRecording, CallSession, Recorder
from toolpool.calls._results import BlobStore, ResultBlob, clip, content_text, fence, sanitize
from toolpool.calls._retry import RETRIED, Relinker, RetryPlan, call_with_retries, retry_plan
from toolpool.calls._revocation import Revocation
from toolpool.calls._sessions import Session, Sessions
from toolpool.calls._shaping import shape_result
from toolpool.calls._shared import SharedState
from toolpool.calls._taint import GUARANTEED, TaintDelta, TaintLedger
from toolpool.calls._visible import Enablement, ReleaseEntry, ReleaseView, Visibility
from toolpool.redaction import Redactor

__all__ = [
    "GUARANTEED",
    "MAX_ARGUMENT_DEPTH",
    "RETRIED",
    "BlobStore",
    "BreakerState",
    "Breakers",
    "CallApprovals",
    "CallPipeline",
    "CallRecording",
    "CallSession",
    "CircuitBreaker",
    "Enablement",
    "Envelope",
    "EventOutlet",
    "Limits",
    "Permit",
    "PipelineSession",
    "QuotaStanding",
    "Recorder",
    "Redactor",
    "RedisState",
    "ReleaseEntry",
    "ReleaseView",
    "Relinker",
    "ResultBlob",
    "RetryPlan",
    "Revocation",
    "Session",
    "Sessions",
    "SharedState",
    "TaintDelta",
    "TaintLedger",
    "Visibility",
    "argument_problems",
    "call_with_retries",
    "clip",
    "content_text",
    "fence",
    "limits_anything",
    "quota_standings",
    "refusal",
    "render_resource",
    "retry_plan",
    "sanitize",
    "shape_result",
    "shown",
    "upstream_failure",
]
