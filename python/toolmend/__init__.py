"""toolmend: find and repair broken tool-call pairing in stored LLM conversation logs.

The same engine as the ``toolmend`` command, called in-process:

* :func:`lint` reports findings (the dicts ``toolmend lint --format json`` prints);
* :func:`repair` returns the repaired value, in the type it was given, and the findings it
  fixed;
* :func:`simulate` replays tool batches through a human-in-the-loop interrupt (``toolmend
  simulate --format json``).

Data is a list of message dicts, a dict envelope (``{"messages": [...]}``, ``{"input": ...}``,
``{"contents": ...}``, ...), or ``str``/``bytes`` holding JSON or JSON Lines, in any dialect
``toolmend detect`` knows. The work runs without the GIL. See ``docs/python.md``.
"""

from __future__ import annotations

from toolmend._api import Data, Finding, lint, repair, simulate
from toolmend._toolmend import DIALECTS, SEED_PLACEHOLDER, TARGETS, ToolmendError, __version__

__all__ = [
    "DIALECTS",
    "SEED_PLACEHOLDER",
    "TARGETS",
    "Data",
    "Finding",
    "ToolmendError",
    "__version__",
    "lint",
    "repair",
    "simulate",
]
