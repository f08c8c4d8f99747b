"""`python -m pgaq_services.notifier`: delivers notifications (http, mailto, plsql)."""

from .app import main

if __name__ == "__main__":
    main()
