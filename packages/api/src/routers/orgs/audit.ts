import { listAudit } from '@collector/db';
import { authorizeOrg } from '../../auth/authorize';
import { authedProcedure } from '../../trpc';
import { auditMeta, ZAuditRequestSchema, ZAuditResponseSchema } from './audit.types';

export const auditRoute = authedProcedure
  .meta(auditMeta)
  .input(ZAuditRequestSchema)
  .output(ZAuditResponseSchema)
  .query(async ({ ctx, input }) => {
    const org = await authorizeOrg(ctx, input.slug, 'audit.read');
    const before = input.cursor === undefined ? undefined : Number(input.cursor);
    const rows = await listAudit(ctx.db, { orgId: org.id, before, limit: input.limit });
    const page = rows.slice(0, input.limit);
    const last = page.at(-1);
    return {
      entries: page.map(({ action, actor, target, at }) => ({ action, actor, target, at })),
      nextCursor: rows.length > input.limit && last ? String(last.id) : null,
    };
  });
