"""The offline screener of tool definitions and results (R5, gate 9).

``RuleScreener`` implements ``toolpool.vetting.screening.Screener`` with weighted rules over
normalised text: no network, no model, deterministic. ``SIGNALS`` is the table of what it looks
for and what each signal weighs (1.0 is the drop line of the default threshold).
"""

from toolpool.vetting.screener._screener import RuleScreener
from toolpool.vetting.screener._signals import SIGNALS, Explained, Signal

__all__ = ["SIGNALS", "Explained", "RuleScreener", "Signal"]
