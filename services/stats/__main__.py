"""`python -m pgaq_services.stats`: runs the statistics job every PGAQ_STATS_INTERVAL minutes."""

from .app import main

if __name__ == "__main__":
    main()
