"""How long a stopping service waits for calls in flight: here alone, so that ``toolpool
serve``'s options can name it without importing the service."""

__all__ = ["GRACE_S"]

# On stop, the event streams end at once (the hub closes first); calls still in flight get
# this long by default before uvicorn cancels them (``toolpool serve --grace-s``).
GRACE_S = 10.0
