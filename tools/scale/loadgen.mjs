// ../shared/scale/loadgen.mjs with varied events: closed-loop load, CONNS keep-alive connections, each POSTs a 50-event
// batch (unique ids) and waits for the answer; prints one JSON line: ok, bad, seconds, latencies (ms) sampled.
// The shared one sends one body over and over, so past its first requests no batch brings a new issue or user. Here,
// with USERS=N each event's anonymous id is drawn from N, with FINGERPRINTS=N its fingerprint from N, per request, and
// every event's timestamp is the send time: first occurrences (an issue's new user, a new issue) keep arriving, as in
// service. Unset, the body is sent as the shared one sends it.

import { readFileSync } from 'node:fs';
import http from 'node:http';

const [url, bodyFile, conns, secs, tag] = process.argv.slice(2);
const users = Number(process.env.USERS ?? 0);
const fingerprints = Number(process.env.FINGERPRINTS ?? 0);
const tpl = readFileSync(bodyFile, 'utf8');
const u = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(conns) });
const draw = (n) => Math.floor(Math.random() * n);
function bodyOf(id) {
  let body = tpl.replaceAll('EVTPH', id);
  if (users > 0) body = body.replace(/"anonymousId":"anon_\d+"/g, () => `"anonymousId":"anon_${draw(users)}"`);
  if (fingerprints > 0)
    body = body.replace(
      /"fingerprint":"js:[0-9a-f]+"/g,
      () => `"fingerprint":"js:${draw(fingerprints).toString(16).padStart(8, '0')}"`,
    );
  if (users > 0 || fingerprints > 0) body = body.replace(/"timestamp":\d+/g, `"timestamp":${Date.now()}`);
  return body;
}
let ok = 0,
  bad = 0,
  n = 0;
const lat = [];
const end = Date.now() + Number(secs) * 1000;
function one(c) {
  return new Promise((resolve) => {
    const body = bodyOf(`${tag}c${c}n${n++}`);
    const t0 = performance.now();
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) ok++;
          else bad++;
          lat.push(performance.now() - t0);
          resolve();
        });
      },
    );
    req.on('error', () => {
      bad++;
      resolve();
    });
    req.end(body);
  });
}
const t0 = Date.now();
await Promise.all(
  Array.from({ length: Number(conns) }, async (_, c) => {
    while (Date.now() < end) await one(c);
  }),
);
const s = (Date.now() - t0) / 1000;
lat.sort((a, b) => a - b);
const sample = lat.filter((_, i) => i % Math.max(1, Math.floor(lat.length / 2000)) === 0);
console.log(JSON.stringify({ ok, bad, s, lat: sample }));
process.exit(0);
