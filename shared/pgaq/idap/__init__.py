"""IDAP: Oracle AQ's Internet Data Access Presentation (SOAP over HTTP)."""
