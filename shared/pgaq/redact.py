"""URLs fit for logs: what a URL may carry as a credential is replaced by ***.

Credentials travel in the authority (user:password@) and in the query (libpq's
password=, a webhook's token=). Logs and error texts keep the scheme, host, port and
path, which say where something went; aq.redact_url does the same in SQL."""

from __future__ import annotations

import re

_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:(?://)?)[^/?#]*@")
_QUERY = re.compile(r"[?#].*$", re.DOTALL)


def redact_url(url: str) -> str:
    return _QUERY.sub("?***", _USERINFO.sub(r"\1***@", url))
