import { z } from 'zod';
import type { Meta } from '../../trpc';
import { pathAppKey } from '../alerts/shapes';

export const listReleasesMeta: Meta = {
  openapi: {
    method: 'GET',
    path: '/api/apps/{appKey}/releases',
    summary: 'The app’s releases, newest first, with what its events say of each',
    description:
      'Its releases (sentry-cli, the bundler plugins) and the versions its events named (Sentry makes a release of those), ' +
      'at most 50, newest first (created, or for a version seen only in events, its first event). ' +
      'Per release: events that named it, its first and last event (of every event received, as Sentry keeps them: ' +
      'retention moves neither), new issues (issues whose first event named it), deploys (count and the latest 3), ' +
      'artifacts (files of its assembled bundles), and ' +
      '`noSourceMaps`: events arrived in it but it has no artifacts (its stacks cannot be mapped by release; debug IDs may still map them).',
    tags: ['releases'],
  },
  contract: { errors: ['UNAUTHENTICATED', 'VALIDATION_FAILED', 'NOT_FOUND', 'FORBIDDEN'] },
};

const ZDeploySchema = z.object({
  environment: z.string(),
  name: z.string().nullable(),
  url: z.string().nullable(),
  dateStarted: z.number().nullable(),
  dateFinished: z.number(),
});

const ZAppReleaseSchema = z.object({
  version: z.string(),
  shortVersion: z.string(),
  /** Null for a version seen only in events. */
  dateCreated: z.number().nullable(),
  dateReleased: z.number().nullable(),
  firstEvent: z.number().nullable(),
  lastEvent: z.number().nullable(),
  events: z.number().int(),
  newIssues: z.number().int(),
  deploys: z.object({ count: z.number().int(), latest: z.array(ZDeploySchema) }),
  artifacts: z.number().int(),
  noSourceMaps: z.boolean(),
});

export const ZListReleasesRequestSchema = z.object({ appKey: pathAppKey });
export const ZListReleasesResponseSchema = z.object({ releases: z.array(ZAppReleaseSchema) });
