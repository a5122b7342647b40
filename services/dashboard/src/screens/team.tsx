// An organization's people: the organization chosen (?org=, else the first), its members with their roles, the
// invitation form (its link shown once, to pass on when the collector sends no e-mail), and pending invitations.
import { type FormEvent, useState } from 'react';
import { client, messageOf, type OrgRole } from '../api';
import { CopyButton } from '../copy-button';
import { navigate, paths, useLocation, useTitle } from '../navigation';
import { useQuery } from '../query';
import { ErrorState, QueryStatus } from '../states';
import { Table } from '../table';
import { Time } from '../time';
import { useWorkspace } from '../workspace';

const roles: readonly OrgRole[] = ['member', 'admin', 'owner'];
const roleLabels: Record<OrgRole, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/** The organization picker every organization screen shows: the slug is in the address, so it can be linked. */
function OrgPicker({ slug, to }: { slug: string | undefined; to: (org: string) => string }) {
  const { orgs } = useWorkspace();
  if (!orgs.data || orgs.data.length < 2) return null;
  return (
    <label className="field">
      <span>Organization</span>
      <select value={slug} onChange={(event) => navigate(to(event.target.value))}>
        {orgs.data.map((org) => (
          <option key={org.slug} value={org.slug}>
            {org.name} ({roleLabels[org.role].toLowerCase()})
          </option>
        ))}
      </select>
    </label>
  );
}

export function TeamScreen() {
  useTitle('Team');
  const { orgs, user } = useWorkspace();
  const { search } = useLocation();
  const org = orgs.data?.find((each) => each.slug === search.get('org')) ?? orgs.data?.[0];
  const slug = org?.slug;
  const team = useQuery(
    async () => (slug ? await client.orgs.members.query({ slug }) : { members: [], invitations: [] }),
    [slug],
  );
  const manages = org?.role === 'owner' || org?.role === 'admin';
  const [invited, setInvited] = useState<{ email: string; url: string }>();
  const [change, setChange] = useState<{ busy: boolean; error?: string }>({ busy: false });

  const run = async (action: () => Promise<unknown>) => {
    setChange({ busy: true });
    try {
      await action();
      setChange({ busy: false });
      team.reload();
      orgs.reload();
    } catch (failure) {
      setChange({ busy: false, error: messageOf(failure) });
    }
  };
  const invite = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email') ?? '');
    const role = String(form.get('role')) as OrgRole;
    void run(async () => {
      if (!slug) return;
      const { invitation } = await client.orgs.invite.mutate({ slug, email, role });
      setInvited({ email: invitation.email, url: invitation.url });
    });
  };

  return (
    <>
      <div className="page-head">
        <h1 tabIndex={-1}>Team{org ? `: ${org.name}` : ''}</h1>
        <div className="toolbar">
          <OrgPicker slug={slug} to={(next) => paths.team(next)} />
        </div>
      </div>
      <QueryStatus query={team} failure="Could not load the members" />
      {change.error && <ErrorState title="Could not do that" message={change.error} />}
      {team.data && (
        <Table className="members responsive" columns={['Member', 'Role', 'Joined', { name: 'Actions', hidden: true }]}>
          {team.data.members.map((member) => (
            <tr key={member.userId}>
              <td>{member.email}</td>
              <td data-label="Role">
                {manages ? (
                  <select
                    aria-label={`Role of ${member.email}`}
                    value={member.role}
                    disabled={change.busy}
                    onChange={(event) =>
                      slug &&
                      run(() =>
                        client.orgs.updateMember.mutate({
                          slug,
                          userId: member.userId,
                          role: event.target.value as OrgRole,
                        }),
                      )
                    }
                  >
                    {roles.map((role) => (
                      <option key={role} value={role}>
                        {roleLabels[role]}
                      </option>
                    ))}
                  </select>
                ) : (
                  roleLabels[member.role]
                )}
              </td>
              <td data-label="Joined">
                <Time ms={member.joinedAt} />
              </td>
              <td>
                {(manages || member.userId === user?.id) && (
                  <button
                    type="button"
                    className="button button-small"
                    disabled={change.busy}
                    onClick={() => slug && run(() => client.orgs.removeMember.mutate({ slug, userId: member.userId }))}
                  >
                    {member.userId === user?.id ? 'Leave' : 'Remove'}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
      {manages && (
        <section className="panel" aria-labelledby="invite-title">
          <h2 id="invite-title">Invite someone</h2>
          <form className="form form-row" onSubmit={invite}>
            <label className="field">
              <span>E-mail</span>
              <input name="email" type="email" required autoComplete="off" />
            </label>
            <label className="field">
              <span>Role</span>
              <select name="role" defaultValue="member">
                {roles.map((role) => (
                  <option key={role} value={role}>
                    {roleLabels[role]}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" className="button button-primary" disabled={change.busy}>
              Invite
            </button>
          </form>
          {invited && (
            <div className="notice notice-info" role="status">
              <p>
                {invited.email} is invited. The link works once, for 7 days; it was e-mailed if the collector sends
                e-mail. Shown only now:
              </p>
              <p>
                <code className="invitation-link">{invited.url}</code>{' '}
                <CopyButton text={invited.url} label="Copy link" />
              </p>
            </div>
          )}
          {team.data && team.data.invitations.length > 0 && (
            <Table
              className="invitations responsive"
              columns={['Invited', 'Role', 'Expires', { name: 'Actions', hidden: true }]}
            >
              {team.data.invitations.map((invitation) => (
                <tr key={invitation.id}>
                  <td>{invitation.email}</td>
                  <td data-label="Role">{roleLabels[invitation.role]}</td>
                  <td data-label="Expires">
                    <Time ms={invitation.expiresAt} />
                  </td>
                  <td>
                    <button
                      type="button"
                      className="button button-small"
                      disabled={change.busy}
                      onClick={() =>
                        slug && run(() => client.orgs.revokeInvitation.mutate({ slug, id: invitation.id }))
                      }
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </section>
      )}
    </>
  );
}
