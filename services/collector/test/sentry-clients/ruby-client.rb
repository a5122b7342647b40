# A Rack app that reports through Debian's sentry-ruby 5.3, unmodified: `ruby ruby-client.rb <dsn>`. The SDK's own Rack
# middleware (Sentry::Rack::CaptureExceptions) takes the request (method, URL, query, headers with Authorization and the
# cookie, and the body with a password, all sent since send_default_pii is on) and reports the error the app raises
# while rescuing another (Ruby's `cause`), with tags, a user, a custom context and extra; the SDK adds os and runtime.
require 'json'
require 'rack'
require 'sentry-ruby'

Sentry.init do |config|
  config.dsn = ARGV.fetch(0)
  config.release = 'shop-rb@5.0.1'
  config.environment = 'production'
  config.server_name = 'api-rb-1'
  config.send_default_pii = true
  # Sent before `capture_exception` returns, so the script can exit as soon as the request is done.
  config.background_worker_threads = 0
end

class CardNetworkError < StandardError; end
class CheckoutError < StandardError; end

def reach_card_network
  raise CardNetworkError, 'card network unreachable'
end

def checkout
  reach_card_network
rescue CardNetworkError
  raise CheckoutError, 'Checkout failed'
end

app = lambda do |_env|
  Sentry.set_tags(tenant: 'acme', 'checkout.step': 'payment')
  Sentry.set_user(id: 'buyer-42', email: 'buyer42@example.com', username: 'buyer42')
  Sentry.set_context('order', { id: 'ord_981', total: 1999, currency: 'EUR' })
  Sentry.set_extras(cart_items: 3, coupon: 'SPRING')
  checkout
  [200, {}, ['ok']]
end

env = Rack::MockRequest.env_for(
  'http://shop.example/checkout?step=pay&coupon=SPRING',
  method: 'POST',
  input: JSON.generate(card_last4: '4242', password: 'hunter2-rb'),
  'CONTENT_TYPE' => 'application/json',
  'HTTP_AUTHORIZATION' => 'Bearer sk_live_rb',
  'HTTP_COOKIE' => 'session=rb-cookie',
  'HTTP_X_REQUEST_ID' => 'req-rb-77'
)
begin
  Sentry::Rack::CaptureExceptions.new(app).call(env)
rescue CheckoutError
  # Reported by the middleware, which lets it through to the server as Rack does.
end
