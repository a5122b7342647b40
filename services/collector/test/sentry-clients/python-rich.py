# A Python web app that reports through Debian's python3-sentry-sdk 1.9.10, unmodified: `python3 python-rich.py <dsn>`.
# The SDK's own WSGI middleware wraps the app (it reads the request's method, URL, query and headers, Authorization and
# Cookie included since send_default_pii is on) and reports the error the app lets escape, unhandled: an exception
# raised `from` its cause, with tags, a user, a custom context and extra; the SDK adds the runtime context. The body,
# with a password, is attached as Flask's integration does (this SDK's bare WSGI middleware reads none).
import io
import json
import sys
from wsgiref.util import setup_testing_defaults

import sentry_sdk
from sentry_sdk.integrations.wsgi import SentryWsgiMiddleware

sentry_sdk.init(
    dsn=sys.argv[1],
    release="billing@3.1.0",
    environment="production",
    server_name="api-py-1",
    send_default_pii=True,
)


class CardNetworkError(ConnectionError):
    pass


class CheckoutError(Exception):
    pass


def reach_card_network():
    raise CardNetworkError("card network unreachable")


def checkout():
    try:
        reach_card_network()
    except CardNetworkError as cause:
        raise CheckoutError("Checkout failed") from cause


def app(environ, start_response):
    body = json.loads(environ["wsgi.input"].read(int(environ["CONTENT_LENGTH"])))

    def add_body(event, hint):
        event.setdefault("request", {})["data"] = body
        return event

    with sentry_sdk.configure_scope() as scope:
        scope.add_event_processor(add_body)
    sentry_sdk.set_tag("tenant", "acme")
    sentry_sdk.set_tag("checkout.step", "payment")
    sentry_sdk.set_user({"id": "buyer-42", "email": "buyer42@example.com", "username": "buyer42"})
    sentry_sdk.set_context("order", {"id": "ord_981", "total": 1999, "currency": "EUR"})
    sentry_sdk.set_extra("cart_items", 3)
    sentry_sdk.set_extra("coupon", "SPRING")
    checkout()


payload = json.dumps({"card_last4": "4242", "password": "hunter2-py"}).encode()
environ = {
    "REQUEST_METHOD": "POST",
    "PATH_INFO": "/checkout",
    "QUERY_STRING": "step=pay&coupon=SPRING",
    "HTTP_HOST": "shop.example",
    "HTTP_AUTHORIZATION": "Bearer sk_live_py",
    "HTTP_COOKIE": "session=py-cookie",
    "HTTP_X_REQUEST_ID": "req-py-77",
    "CONTENT_TYPE": "application/json",
    "CONTENT_LENGTH": str(len(payload)),
    "wsgi.input": io.BytesIO(payload),
}
setup_testing_defaults(environ)
try:
    SentryWsgiMiddleware(app)(environ, lambda status, headers: None)
except CheckoutError:
    pass  # reported by the middleware, which lets it through as a server would see it
sentry_sdk.flush(timeout=10)
