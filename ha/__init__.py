"""`make ha-test`: pgaq on a Patroni cluster through failovers (docs/deployment.md)."""
