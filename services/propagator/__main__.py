"""`python -m pgaq_services.propagator`: runs propagation schedules."""

from .app import main

if __name__ == "__main__":
    main()
