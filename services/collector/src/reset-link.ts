// `pnpm reset-link <email>`: prints a password reset link for an account, for a collector without SMTP (the link is
// what the e-mail would carry: valid one hour, once). Prints nothing and exits 1 when no account has the e-mail.
import { createPasswordResetLink } from '@collector/api';
import { openDatabase, startEmbeddedPostgres } from '@collector/db';
import { emailSchema } from '@collector/domain';
import { parseEnv } from './env';

const env = parseEnv(process.env);
const email = emailSchema.safeParse(process.argv[2] ?? '');
if (!email.success) {
  console.error('usage: pnpm reset-link <email>');
  process.exit(2);
}
const embedded =
  env.databaseUrl || env.embedded === 'pglite' ? undefined : await startEmbeddedPostgres({ dataDir: env.dataDir });
const database = await openDatabase({ url: env.databaseUrl ?? embedded?.url, dataDir: env.dataDir, maxConnections: 1 });
try {
  const publicUrl = env.publicUrl ?? `http://localhost:${env.port}`;
  const link = await createPasswordResetLink(database.db, email.data, Date.now(), publicUrl);
  if (link) console.log(link);
  else {
    console.error(`no account has the e-mail ${email.data}`);
    process.exitCode = 1;
  }
} finally {
  await database.close();
  await embedded?.stop();
}
