// The caller's apps, and a form to create one.
import { appNameChars } from '@collector/domain/app';
import { type FormEvent, useState } from 'react';
import { type AppType, appTypes, client, endSessionIfRefused, messageOf } from '../api';
import { Link, navigate, paths, useTitle } from '../navigation';
import { EmptyState, ErrorState, QueryStatus } from '../states';
import { Table } from '../table';
import { Time } from '../time';
import { useWorkspace } from '../workspace';

const typeLabels: Record<AppType, string> = {
  web: 'Web',
  node: 'Node.js',
  ios: 'iOS',
  android: 'Android',
  'react-native': 'React Native',
  flutter: 'Flutter',
  electron: 'Electron',
  other: 'Other',
};

export function AppsScreen() {
  useTitle('Apps');
  const { apps, orgs } = useWorkspace();
  // Apps are made where the caller is owner or admin.
  const creatable = orgs.data?.filter((org) => org.role === 'owner' || org.role === 'admin') ?? [];
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(undefined);
    try {
      const org = String(form.get('org') ?? '');
      const { app } = await client.apps.create.mutate({
        name: String(form.get('name') ?? ''),
        type: String(form.get('type')) as AppType,
        ...(org ? { org } : {}),
      });
      apps.reload();
      navigate(paths.app(app.appKey));
    } catch (failure) {
      endSessionIfRefused(failure);
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <>
      <div className="page-head">
        <h1 tabIndex={-1}>Apps</h1>
      </div>
      <QueryStatus query={apps} failure="Could not load your apps" />
      {apps.data && apps.data.length === 0 && (
        <EmptyState title="No apps yet">
          <p>Each app gets an appKey: the SDK in your app sends its errors with it. Create your first app below.</p>
        </EmptyState>
      )}
      {apps.data && apps.data.length > 0 && (
        <Table className="apps responsive" columns={['Name', 'Organization', 'Type', 'appKey', 'Created']}>
          {apps.data.map((app) => (
            <tr key={app.appKey}>
              <td>
                <Link href={paths.app(app.appKey)}>{app.name}</Link>
              </td>
              <td data-label="Organization">{orgs.data?.find((org) => org.slug === app.org)?.name ?? app.org}</td>
              <td data-label="Type">{typeLabels[app.type]}</td>
              <td data-label="appKey">
                <code>{app.appKey}</code>
              </td>
              <td data-label="Created">
                <Time ms={app.createdAt} />
              </td>
            </tr>
          ))}
        </Table>
      )}

      <section className="panel" aria-labelledby="create-title">
        <h2 id="create-title">Create an app</h2>
        <form className="form form-row" onSubmit={create}>
          <label className="field">
            <span>Name</span>
            <input
              name="name"
              required
              minLength={appNameChars.min}
              maxLength={appNameChars.max}
              placeholder="Shop"
              autoComplete="off"
            />
          </label>
          <label className="field">
            <span>Type</span>
            <select name="type" defaultValue="web">
              {appTypes.map((type) => (
                <option key={type} value={type}>
                  {typeLabels[type]}
                </option>
              ))}
            </select>
          </label>
          {creatable.length > 1 && (
            <label className="field">
              <span>Organization</span>
              <select name="org" defaultValue={creatable[0]?.slug}>
                {creatable.map((org) => (
                  <option key={org.slug} value={org.slug}>
                    {org.name}
                  </option>
                ))}
              </select>
            </label>
          )}
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create app'}
          </button>
        </form>
        {error && <ErrorState title="Could not create the app" message={error} />}
      </section>
    </>
  );
}
