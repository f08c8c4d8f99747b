"""`python -m pgaq_services.core`: migrations, health, metrics and the JSON admin API."""

from .app import main

if __name__ == "__main__":
    main()
