"""The old name of pgaq.client, deprecated: import from `pgaq` (or `pgaq.client`) instead.

Kept for one release so that `from pgaq.engine import Session` keeps working; this file
goes in the release after next. `pgaq.engine` is not a copy but the module pgaq.client
itself (sys.modules below): the same classes, and the same globals, so a name set on one
is seen through the other.
"""

from __future__ import annotations

import sys
import warnings

from . import client
from .client import *  # noqa: F403  (what type checkers see: they do not follow sys.modules)

warnings.warn("pgaq.engine is deprecated and goes in the release after next: import from pgaq "
              "(Session, DequeueOptions, ...) or pgaq.client", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = client
