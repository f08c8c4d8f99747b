"""`python -m pgaq_services.monitor`: the queue monitor (delay, expiry, retention)."""

from .app import main

if __name__ == "__main__":
    main()
