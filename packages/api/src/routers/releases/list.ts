import { appReleaseVersions, deploySummaries, releaseActivity, releaseArtifactCounts } from '@collector/db';
import { shortReleaseVersion } from '@collector/domain';
import { authorizeApp } from '../../auth/authorize';
import { authedProcedure } from '../../trpc';
import { listReleasesMeta, ZListReleasesRequestSchema, ZListReleasesResponseSchema } from './list.types';

/** Versions on the page: enough for a release history, few enough that the per-release figures stay cheap. */
const PAGE = 50;
const LATEST_DEPLOYS = 3;

export const listReleasesRoute = authedProcedure
  .meta(listReleasesMeta)
  .input(ZListReleasesRequestSchema)
  .output(ZListReleasesResponseSchema)
  .query(async ({ ctx, input }) => {
    const { orgId } = await authorizeApp(ctx, input.appKey, 'releases.read');
    const listed = await appReleaseVersions(ctx.db, orgId, input.appKey, PAGE);
    const versions = listed.map((entry) => entry.version);
    const [activity, deploys, artifacts] = await Promise.all([
      releaseActivity(ctx.db, [input.appKey], versions),
      deploySummaries(ctx.db, orgId, versions, LATEST_DEPLOYS),
      releaseArtifactCounts(ctx.db, orgId, versions),
    ]);
    return {
      releases: listed.map(({ version, release }) => {
        const seen = activity.get(version);
        const deploy = deploys.get(version);
        const files = artifacts.get(version) ?? 0;
        const events = seen?.events ?? 0;
        return {
          version,
          shortVersion: shortReleaseVersion(version),
          dateCreated: release?.created_at ?? null,
          dateReleased: release?.date_released ?? null,
          firstEvent: seen?.firstEvent ?? null,
          lastEvent: seen?.lastEvent ?? null,
          events,
          newIssues: seen?.newIssues ?? 0,
          deploys: {
            count: deploy?.count ?? 0,
            latest: (deploy?.latest ?? []).map((row) => ({
              environment: row.environment,
              name: row.name,
              url: row.url,
              dateStarted: row.date_started,
              dateFinished: row.date_finished,
            })),
          },
          artifacts: files,
          noSourceMaps: events > 0 && files === 0,
        };
      }),
    };
  });
