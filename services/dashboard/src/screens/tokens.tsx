// API tokens: the caller's own and their organizations' (for owners and admins); a new one's value shown once, with a
// copy button, and revoking.
import { type FormEvent, useState } from 'react';
import { type ApiToken, client, messageOf } from '../api';
import { CopyButton } from '../copy-button';
import { useTitle } from '../navigation';
import { useQuery } from '../query';
import { EmptyState, ErrorState, QueryStatus } from '../states';
import { Table } from '../table';
import { Time } from '../time';
import { useWorkspace } from '../workspace';

type Scope = ApiToken['scopes'][number];
const scopes: readonly Scope[] = ['read', 'write', 'releases'];
const scopeHints: Record<Scope, string> = {
  read: 'read everything the account may read',
  write: 'triage, comment, manage alerts and apps',
  releases: 'releases and source maps (sentry-cli)',
};

export function TokensScreen() {
  useTitle('API tokens');
  const { orgs } = useWorkspace();
  const tokens = useQuery(async () => (await client.tokens.list.query()).tokens, []);
  const [made, setMade] = useState<{ name: string; value: string }>();
  const [change, setChange] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const managed = orgs.data?.filter((org) => org.role === 'owner' || org.role === 'admin') ?? [];

  const run = async (action: () => Promise<unknown>) => {
    setChange({ busy: true });
    try {
      await action();
      setChange({ busy: false });
      tokens.reload();
    } catch (failure) {
      setChange({ busy: false, error: messageOf(failure) });
    }
  };
  const create = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const org = String(form.get('org') ?? '');
    const chosen = scopes.filter((scope) => form.get(`scope-${scope}`) === 'on');
    void run(async () => {
      const { token } = await client.tokens.create.mutate({
        name: String(form.get('name') ?? ''),
        scopes: chosen,
        ...(org ? { org } : {}),
      });
      setMade({ name: token.name, value: token.value });
    });
  };

  return (
    <>
      <div className="page-head">
        <h1 tabIndex={-1}>API tokens</h1>
      </div>
      <QueryStatus query={tokens} failure="Could not load the tokens" />
      {change.error && <ErrorState title="Could not do that" message={change.error} />}
      {made && (
        <div className="notice notice-info" role="status">
          <p>The token {made.name}, shown only now: copy it to where it is used (SENTRY_AUTH_TOKEN for sentry-cli).</p>
          <p>
            <code className="token-value">{made.value}</code> <CopyButton text={made.value} label="Copy token" />
          </p>
        </div>
      )}
      {tokens.data && tokens.data.length === 0 && <EmptyState title="No tokens yet" />}
      {tokens.data && tokens.data.length > 0 && (
        <Table
          className="tokens responsive"
          columns={['Name', 'Scopes', 'Organization', 'Last used', 'Expires', { name: 'Actions', hidden: true }]}
        >
          {tokens.data.map((token) => (
            <tr key={token.id}>
              <td>{token.name}</td>
              <td data-label="Scopes">{token.scopes.join(', ')}</td>
              <td data-label="Organization">{token.org ?? 'you'}</td>
              <td data-label="Last used">{token.lastUsedAt === null ? 'never' : <Time ms={token.lastUsedAt} />}</td>
              <td data-label="Expires">{token.expiresAt === null ? 'never' : <Time ms={token.expiresAt} />}</td>
              <td>
                <button
                  type="button"
                  className="button button-small"
                  disabled={change.busy}
                  onClick={() => run(() => client.tokens.delete.mutate({ id: token.id }))}
                >
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      <section className="panel" aria-labelledby="token-title">
        <h2 id="token-title">Create a token</h2>
        <form className="form" onSubmit={create}>
          <label className="field">
            <span>Name</span>
            <input name="name" required maxLength={100} placeholder="CI" autoComplete="off" />
          </label>
          <fieldset className="field">
            <legend>Scopes</legend>
            {scopes.map((scope) => (
              <label key={scope} className="check">
                <input type="checkbox" name={`scope-${scope}`} defaultChecked={scope === 'read'} /> {scope}:{' '}
                {scopeHints[scope]}
              </label>
            ))}
          </fieldset>
          <label className="field">
            <span>Belongs to</span>
            <select name="org" defaultValue="">
              <option value="">You (a user token)</option>
              {managed.map((org) => (
                <option key={org.slug} value={org.slug}>
                  {org.name} (an organization token)
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="button button-primary" disabled={change.busy}>
            Create token
          </button>
        </form>
      </section>
    </>
  );
}
