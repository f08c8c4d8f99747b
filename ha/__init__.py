"""High availability: pgaq on a Patroni cluster, gateways scaled out behind HAProxy."""
