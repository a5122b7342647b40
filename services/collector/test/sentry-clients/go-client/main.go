// A Go app that reports through Debian's sentry-go 0.11, unmodified: `go-client <dsn>`. Its net/http handler, wrapped
// by sentry-go's own http integration (which puts the request on the hub's scope and tees its body), reports an error
// that wraps another (an Unwrap chain, which the SDK walks), with tags, a user, a custom context and extra; the SDK
// adds os, runtime and device. The request carries an Authorization header, a cookie and a body with a password,
// which the SDK sends as they are: the server must drop and scrub them.
package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/getsentry/sentry-go"
	sentryhttp "github.com/getsentry/sentry-go/http"
)

// NetworkError is the cause: the card network could not be reached.
type NetworkError struct{ host string }

func (e *NetworkError) Error() string { return "card network unreachable: " + e.host }

// CheckoutError wraps its cause, as errors made with %w do, under a type of its own the chain can show.
type CheckoutError struct{ cause error }

func (e *CheckoutError) Error() string { return "Checkout failed" }
func (e *CheckoutError) Unwrap() error { return e.cause }

func reachCardNetwork() error { return &NetworkError{host: "cards.example"} }

func checkout() error {
	if err := reachCardNetwork(); err != nil {
		return &CheckoutError{cause: err}
	}
	return nil
}

func handler(w http.ResponseWriter, r *http.Request) {
	// Read the body as a handler does: sentry-go keeps what went by for the event's request data.
	_, _ = io.ReadAll(r.Body)
	hub := sentry.GetHubFromContext(r.Context())
	hub.ConfigureScope(func(scope *sentry.Scope) {
		scope.SetTags(map[string]string{"tenant": "acme", "checkout.step": "payment"})
		scope.SetUser(sentry.User{ID: "buyer-42", Email: "buyer42@example.com", Username: "buyer42"})
		scope.SetContext("order", map[string]interface{}{"id": "ord_981", "total": 1999, "currency": "EUR"})
		scope.SetExtras(map[string]interface{}{"cart_items": 3, "coupon": "SPRING"})
	})
	hub.CaptureException(checkout())
	w.WriteHeader(http.StatusInternalServerError)
}

func main() {
	err := sentry.Init(sentry.ClientOptions{
		Dsn:         os.Args[1],
		Release:     "shop-go@1.4.0",
		Environment: "production",
		ServerName:  "api-go-1",
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() { _ = http.Serve(listener, sentryhttp.New(sentryhttp.Options{}).HandleFunc(handler)) }()

	body := bytes.NewBufferString(`{"card_last4":"4242","password":"hunter2-go"}`)
	url := fmt.Sprintf("http://%s/checkout?step=pay&coupon=SPRING", listener.Addr())
	request, _ := http.NewRequest(http.MethodPost, url, body)
	request.Header.Set("Authorization", "Bearer sk_live_go")
	request.Header.Set("Cookie", "session=go-cookie")
	request.Header.Set("Content-Type", "application/json")
	request.Header.Set("X-Request-Id", "req-go-77")
	response, err := http.DefaultClient.Do(request)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	response.Body.Close()
	if !sentry.Flush(10 * time.Second) {
		fmt.Fprintln(os.Stderr, "sentry-go did not flush in time")
		os.Exit(1)
	}
}
