// The SSRF guard for webhooks: a webhook must not reach into the network the collector runs in (its database, a cloud
// metadata service at 169.254.169.254, an admin port on localhost). The host is resolved and every address checked;
// the connection then goes to an address that was checked, through the lookup below, so a DNS answer that changes
// between the check and the connection (rebinding) cannot redirect it.

import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as resolveHost } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Why an address may not be called, or undefined when it may. Only ordinary public unicast addresses pass:
 * ipaddr.js names every special range (loopback, private, linkLocal, uniqueLocal, unspecified, carrierGradeNat,
 * multicast, reserved, 6to4, teredo...), and an IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export function addressRefusal(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const range = ipaddr.process(address).range();
  return range === 'unicast'
    ? undefined
    : `${address} is a ${range} address, refused (ALERTS_ALLOW_PRIVATE_NETWORKS=true allows it)`;
}

/** URL.hostname keeps an IPv6 literal's brackets. */
const bareHost = (hostname: string) =>
  hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;

/** Resolves the host and checks every address it has: one bad address refuses the host. */
export async function checkedAddresses(hostname: string): Promise<LookupAddress[]> {
  const host = bareHost(hostname);
  const family = isIP(host);
  let addresses: LookupAddress[];
  if (family !== 0) addresses = [{ address: host, family }];
  else {
    try {
      addresses = await resolveHost(host, { all: true, verbatim: true });
    } catch (error) {
      throw new Error(`${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
    }
  }
  if (addresses.length === 0) throw new Error(`${host} does not resolve`);
  for (const { address } of addresses) {
    const refused = addressRefusal(address);
    if (refused) throw new Error(family === 0 ? `${host} resolves to ${refused}` : refused);
  }
  return addresses;
}

/** For creating a rule: why the service will not post to this URL, or undefined. */
export async function webhookUrlRefusal(url: string, allowPrivateNetworks: boolean): Promise<string | undefined> {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http:// or https:// URL';
  if (allowPrivateNetworks) return undefined;
  try {
    await checkedAddresses(parsed.hostname);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that answers only with checked addresses. Node connects to what it answers, without
 * a lookup of its own. (An IP literal host skips lookup altogether: sendWebhook checks those before connecting.)
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  checkedAddresses(hostname).then(
    (addresses) => {
      const wanted =
        options.family === 4 || options.family === 6
          ? addresses.filter((each) => each.family === options.family)
          : addresses;
      if (wanted.length === 0)
        return callback(
          Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }),
          [],
        );
      if (options.all) callback(null, wanted);
      else callback(null, (wanted[0] as LookupAddress).address, (wanted[0] as LookupAddress).family);
    },
    (error: Error) => callback(Object.assign(error, { code: 'EREFUSED' }), []),
  );
}
