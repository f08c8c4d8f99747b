"""`python -m pgaq_services.gateway`: the IDAP gateway (SOAP over HTTP)."""

from .app import main

if __name__ == "__main__":
    main()
