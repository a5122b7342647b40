// Posting one webhook: signed, time-limited, guarded against private networks, and reading no more of the answer
// than an error message needs.
import { createHmac } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { addressRefusal, guardedLookup } from './webhook-address';

export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Of the receiver's answer, only this much is read (for lastError); the rest is dropped with the connection. */
const MAX_ANSWER_BYTES = 4096;

/** `sha256=<hex HMAC-SHA256 of the raw body keyed by the rule's secret>`. */
function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export interface WebhookRequest {
  url: string;
  body: string;
  secret: string;
  deliveryId: string;
  allowPrivateNetworks: boolean;
  timeoutMs?: number;
}

/** Resolves on a 2xx answer; rejects with an Error whose message becomes the delivery's lastError. */
export async function sendWebhook(webhook: WebhookRequest): Promise<void> {
  const url = new URL(webhook.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not an http:// or https:// URL');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!webhook.allowPrivateNetworks && isIP(host) !== 0) {
    const refused = addressRefusal(host);
    if (refused) throw new Error(refused);
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const timeoutMs = webhook.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(webhook.body),
          'user-agent': 'collector-alerts',
          'x-collector-delivery': webhook.deliveryId,
          'x-collector-signature': webhookSignature(webhook.secret, webhook.body),
        },
        // A fresh connection per delivery: no agent pools a socket that was checked for another host.
        agent: false,
        ...(webhook.allowPrivateNetworks ? {} : { lookup: guardedLookup as never }),
      },
      (res) => {
        readSome(res).then((answer) => {
          req.destroy();
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new Error(`HTTP ${status}${answer ? `: ${answer}` : ''}`));
        }, reject);
      },
    );
    // One limit for the whole exchange: connecting, sending and the answer's status and first bytes.
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code && !error.message.includes(error.code) ? `${error.code}: ${error.message}` : error.message,
        ),
      ),
    );
    req.end(webhook.body);
  });
}

/** The first bytes of the answer as text, for the delivery's lastError. */
function readSome(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () =>
      resolve(
        Buffer.concat(chunks)
          .toString('utf8', 0, Math.min(size, MAX_ANSWER_BYTES))
          .replace(/\s+/g, ' ')
          .trim()
          .slice(0, 200),
      );
    res.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_ANSWER_BYTES) {
        res.destroy();
        done();
      }
    });
    res.on('end', done);
    res.on('error', done);
    res.on('close', done);
  });
}
