"""The chaos driver of issue 8: load through every path while everything fails, then
every message id accounted for. `python -m chaos` (or `make chaos`)."""
