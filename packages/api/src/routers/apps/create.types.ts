import { appNameSchema, appTypeSchema, limits } from '@collector/domain';
import { z } from 'zod';
import { slugParameter, ZAppSchema } from '../../schemas';
import type { Meta } from '../../trpc';

export const createAppMeta: Meta = {
  openapi: {
    method: 'POST',
    path: '/api/apps',
    summary: 'Create an app',
    description:
      'Returns the app with its appKey (`<type>_<id>`, unguessable), the key SDKs send events with. In the organization org names ' +
      '(owner or admin), else the caller’s own; its slug comes from the name, unique in the organization, never all digits.',
    tags: ['apps'],
  },
  contract: {
    status: 201,
    errors: [
      'UNAUTHENTICATED',
      'NOT_FOUND',
      'INVALID_JSON',
      'VALIDATION_FAILED',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
    ],
  },
};

export const ZCreateAppRequestSchema = z.object({
  name: appNameSchema.meta({
    description: `1 to ${limits.appNameChars} characters after surrounding spaces are trimmed`,
  }),
  type: appTypeSchema,
  org: slugParameter.meta({ description: 'The organization’s slug; default the caller’s own' }).optional(),
});
export const ZCreateAppResponseSchema = z.object({ app: ZAppSchema });
