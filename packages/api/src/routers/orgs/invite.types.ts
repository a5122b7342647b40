import { z } from 'zod';
import { slugParameter } from '../../schemas';
import type { Meta } from '../../trpc';
import { ZInvitationRequestSchema, ZInvitationSchema } from './shapes';

export const inviteMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/orgs/{slug}/invitations',
    summary: 'Invite someone by e-mail',
    description:
      'Owners and admins invite; only an owner invites an owner. url is the dashboard’s accept page (from PUBLIC_URL) with a ' +
      'random token of 190 bits, shown only here and stored as SHA-256; with SMTP_URL it is also e-mailed. It works once, for ' +
      '7 days, until revoked, and only for an account with this e-mail. Rate limited per user and address.',
    tags: ['organizations'],
  },
  contract: { status: 201, errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND', 'RATE_LIMITED'] },
};

export const ZInviteRequestSchema = ZInvitationRequestSchema.extend({ slug: slugParameter });
export const ZInviteResponseSchema = z.object({
  invitation: ZInvitationSchema.extend({
    url: z.string().meta({ description: 'The accept page’s link, with the token; shown only here' }),
  }),
});
