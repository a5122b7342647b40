// One app's alerts: its rules (create, delete, send a test) and the latest deliveries with their outcome.
import { type FormEvent, useState } from 'react';
import { type AlertDelivery, type AlertRule, type AlertTrigger, client, endSessionIfRefused, messageOf } from '../api';
import { Link, paths, useTitle } from '../navigation';
import { useQuery } from '../query';
import { ErrorState, NoSuchApp, QueryStatus } from '../states';
import { Table } from '../table';
import { Time } from '../time';
import { useWorkspace } from '../workspace';

const triggerLabels: Record<AlertTrigger | 'test', string> = {
  new_issue: 'New issue',
  regression: 'Regression',
  spike: 'Spike',
  test: 'Test',
};

function describeTrigger(alert: AlertRule): string {
  if (alert.trigger === 'spike' && alert.spike)
    return `${alert.spike.events} events of an issue within ${alert.spike.minutes} min`;
  return triggerLabels[alert.trigger];
}

function describeChannel(alert: AlertRule): string {
  return alert.channel.type === 'webhook' ? `Webhook to ${alert.channel.url}` : `E-mail to ${alert.channel.to}`;
}

export function AlertsScreen({ appKey }: { appKey: string }) {
  const { apps } = useWorkspace();
  const app = apps.data?.find((candidate) => candidate.appKey === appKey);
  useTitle(app ? `Alerts · ${app.name}` : 'Alerts');
  const alerts = useQuery(async () => (await client.alerts.list.query({ appKey })).alerts, [appKey]);
  const deliveries = useQuery(async () => (await client.alerts.deliveries.query({ appKey })).deliveries, [appKey]);
  const [trigger, setTrigger] = useState<AlertTrigger>('new_issue');
  const [channel, setChannel] = useState<'webhook' | 'email'>('webhook');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string>();

  const act = async (what: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    try {
      await what();
    } catch (failure) {
      endSessionIfRefused(failure);
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  };

  const create = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const target = String(form.get('target') ?? '');
    void act(async () => {
      await client.alerts.create.mutate({
        appKey,
        trigger,
        channel: channel === 'webhook' ? { type: 'webhook', url: target } : { type: 'email', to: target },
        ...(trigger === 'spike'
          ? { spike: { events: Number(form.get('events')), minutes: Number(form.get('minutes')) } }
          : {}),
      });
      alerts.reload();
    });
  };

  const remove = (alert: AlertRule) => {
    if (
      !window.confirm(
        `Delete the rule "${describeTrigger(alert)}: ${describeChannel(alert)}"? Its pending deliveries go with it.`,
      )
    )
      return;
    return act(async () => {
      await client.alerts.delete.mutate({ appKey, id: alert.id });
      alerts.reload();
      deliveries.reload();
    });
  };

  const sendTest = (alert: AlertRule) =>
    act(async () => {
      const { delivery } = await client.alerts.test.mutate({ appKey, id: alert.id });
      setNotice(
        delivery.status === 'delivered'
          ? 'The test was delivered.'
          : `The test was not delivered: ${delivery.lastError ?? 'unknown error'}`,
      );
      deliveries.reload();
    });

  return (
    <>
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href={paths.apps()}>Apps</Link> / <Link href={paths.app(appKey)}>{app?.name ?? appKey}</Link>
      </nav>
      <div className="page-head">
        <h1 tabIndex={-1}>Alerts</h1>
        <div className="toolbar">
          <button type="button" className="button" onClick={() => deliveries.reload()}>
            Refresh deliveries
          </button>
        </div>
      </div>
      {apps.data && !app && <NoSuchApp appKey={appKey} />}
      {error && <ErrorState title="That did not work" message={error} />}
      {notice && (
        <div className="notice notice-info" role="status">
          <p>{notice}</p>
        </div>
      )}

      <section className="panel" aria-labelledby="rules-title">
        <h2 id="rules-title">Rules</h2>
        <QueryStatus query={alerts} failure="Could not load the rules" />
        {alerts.data && alerts.data.length === 0 && (
          <p className="muted">No rules yet: nobody hears of this app's new issues until you add one.</p>
        )}
        {alerts.data && alerts.data.length > 0 && (
          <Table
            className="alerts responsive"
            columns={['When', 'Where', 'Signing secret', 'Created', { name: 'Actions', hidden: true }]}
          >
            {alerts.data.map((alert) => (
              <tr key={alert.id} data-alert-id={alert.id}>
                <td>{describeTrigger(alert)}</td>
                <td data-label="Where">{describeChannel(alert)}</td>
                <td data-label="Secret">
                  {alert.channel.type === 'webhook' ? (
                    <code>{alert.secret}</code>
                  ) : (
                    <span className="muted">not used</span>
                  )}
                </td>
                <td data-label="Created">
                  <Time ms={alert.createdAt} />
                </td>
                <td>
                  <button
                    type="button"
                    className="button button-small"
                    disabled={busy}
                    onClick={() => void sendTest(alert)}
                  >
                    Send a test
                  </button>{' '}
                  <button
                    type="button"
                    className="button button-small button-quiet"
                    disabled={busy}
                    onClick={() => void remove(alert)}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </section>

      <section className="panel" aria-labelledby="create-alert-title">
        <h2 id="create-alert-title">Add a rule</h2>
        <form className="form form-row" onSubmit={create}>
          <label className="field">
            <span>When</span>
            <select name="trigger" value={trigger} onChange={(event) => setTrigger(event.target.value as AlertTrigger)}>
              <option value="new_issue">A new issue appears</option>
              <option value="regression">A resolved issue comes back</option>
              <option value="spike">An issue spikes</option>
            </select>
          </label>
          {trigger === 'spike' && (
            <>
              <label className="field">
                <span>Events (at least)</span>
                <input name="events" type="number" min={1} step={1} required defaultValue={100} />
              </label>
              <label className="field">
                <span>Within minutes (1 to 1440)</span>
                <input name="minutes" type="number" min={1} max={1440} step={1} required defaultValue={60} />
              </label>
            </>
          )}
          <label className="field">
            <span>Send</span>
            <select
              name="channel"
              value={channel}
              onChange={(event) => setChannel(event.target.value as 'webhook' | 'email')}
            >
              <option value="webhook">Webhook</option>
              <option value="email">E-mail</option>
            </select>
          </label>
          <label className="field">
            <span>{channel === 'webhook' ? 'URL' : 'To'}</span>
            <input
              name="target"
              type={channel === 'webhook' ? 'url' : 'email'}
              required
              placeholder={channel === 'webhook' ? 'https://hooks.example.com/collector' : 'oncall@example.com'}
              autoComplete="off"
            />
          </label>
          <button type="submit" className="button button-primary" disabled={busy}>
            Add rule
          </button>
        </form>
      </section>

      <section className="panel" aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Latest deliveries</h2>
        <QueryStatus query={deliveries} failure="Could not load the deliveries" />
        {deliveries.data && deliveries.data.length === 0 && <p className="muted">Nothing sent yet.</p>}
        {deliveries.data && deliveries.data.length > 0 && (
          <Table
            className="deliveries responsive"
            columns={['When', 'Why', 'Issue', 'Status', 'Attempts', 'Last error']}
          >
            {deliveries.data.map((delivery: AlertDelivery) => (
              <tr key={delivery.id} data-delivery-id={delivery.id}>
                <td>
                  <Time ms={delivery.createdAt} />
                </td>
                <td data-label="Why">{triggerLabels[delivery.trigger]}</td>
                <td data-label="Issue">
                  {delivery.issueId ? (
                    <Link href={paths.issue(delivery.issueId)}>{delivery.issueId.split(':').slice(1).join(':')}</Link>
                  ) : (
                    '—'
                  )}
                </td>
                <td data-label="Status" data-status={delivery.status}>
                  {delivery.status}
                </td>
                <td data-label="Attempts">{delivery.attempts}</td>
                <td data-label="Last error">{delivery.lastError ?? ''}</td>
              </tr>
            ))}
          </Table>
        )}
      </section>
    </>
  );
}
