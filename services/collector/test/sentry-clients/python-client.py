# A Python app that reports through Debian's python3-sentry-sdk 1.9.10, unmodified: `python3 python-client.py <dsn>`.
# That SDK posts gzipped JSON events to /api/<project>/store/ with an X-Sentry-Auth header.
import sys

import sentry_sdk

sentry_sdk.init(dsn=sys.argv[1], release="billing@3.0.1", environment="production", default_integrations=False)
sentry_sdk.set_user({"id": "py-user-3", "ip_address": "203.0.113.9"})
sentry_sdk.add_breadcrumb(category="db", message="select invoices", level="info")


def parse_invoice(text):
    return int(text)


def import_invoices():
    try:
        parse_invoice("12a")
    except ValueError:
        sentry_sdk.capture_exception()


import_invoices()
sentry_sdk.capture_message("nightly export skipped", level="warning")
sentry_sdk.flush(timeout=10)
