// Identifiers and secrets, all from the CSPRNG.
import { createHash, randomBytes } from 'node:crypto';

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** Lower-case letters and digits: ~5.17 bits a character, unbiased (256 is not a multiple of 36, so rejection sampling). */
function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 252 && out.length < length) out += ALPHANUMERIC[byte % 36];
    }
  }
  return out;
}

/** 128 random bits. */
export const newUserId = () => `user_${randomAlphanumeric(25)}`;

/** `<type>_<id>` with 103 random bits: unguessable, since it is the app's public ingestion key. */
export const newAppKey = (type: string) => `${type}_${randomAlphanumeric(20)}`;

/** The key in an app's Sentry DSN: 128 random bits as 32 lowercase hex characters, the form Sentry SDKs expect. */
export const newPublicKey = () => randomBytes(16).toString('hex');

/** 160 random bits; only its SHA-256 is stored. */
export const newSessionToken = () => `session_${randomAlphanumeric(31)}`;

/** Alert rules: their id, and the secret that signs their webhooks (206 random bits). */
export const newAlertId = () => `alert_${randomAlphanumeric(20)}`;
export const newAlertSecret = () => `whsec_${randomAlphanumeric(40)}`;

/** Organizations, invitations and API tokens: ids that name them in paths, not secrets. */
export const newOrgId = () => `org_${randomAlphanumeric(20)}`;
export const newInvitationId = () => `inv_${randomAlphanumeric(20)}`;
export const newApiTokenId = () => `tok_${randomAlphanumeric(20)}`;
export const newDeployId = () => `dep_${randomAlphanumeric(20)}`;

/** Invitation and password reset links: 190 random bits; only the SHA-256 is stored. */
export const newLinkToken = () => randomAlphanumeric(37);

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
