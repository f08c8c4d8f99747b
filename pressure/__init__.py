"""`make pressure`: the fault classes `make chaos` does not have, each a cell with a figure
and a pass rule (docs/chaos.md, "Pressure cells")."""
