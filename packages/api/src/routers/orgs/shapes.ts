// Shapes the organization routes share.
import { emailSchema } from '@collector/domain';
import { z } from 'zod';
import { ZOrgRoleSchema } from '../../schemas';

export const pathUserId = z
  .string()
  .regex(/^user_[a-z0-9]{1,64}$/, 'must be a user id')
  .meta({ description: 'A user id' });

export const ZMemberSchema = z
  .object({
    userId: z.string(),
    email: z.string().meta({ format: 'email' }),
    role: ZOrgRoleSchema,
    joinedAt: z.int().min(0),
  })
  .meta({ id: 'Member' });

export const ZInvitationSchema = z
  .object({
    id: z.string(),
    email: z.string().meta({ format: 'email' }),
    role: ZOrgRoleSchema,
    expiresAt: z.int().min(0),
  })
  .meta({ id: 'Invitation' });

export const ZInvitationRequestSchema = z.object({
  email: emailSchema.meta({
    format: 'email',
    description: 'Whom to invite; only an account with this e-mail can accept',
  }),
  role: ZOrgRoleSchema,
});
