// Choosing one app or all of them; the choice lives in the URL (?app=), so it survives a reload and can be shared.
// Where totals cover one organization (the overview), the organizations are choices too (?org=): "All apps" is then
// the caller's own organization's, each other organization's apps one more choice.
import { navigate } from './navigation';
import { useWorkspace } from './workspace';

const ORG = 'org:';

export function AppFilter({
  appKey,
  pathFor,
  org,
  orgPath,
}: {
  appKey: string | undefined;
  pathFor: (appKey?: string) => string;
  /** With orgPath: the organization chosen (?org=). */
  org?: string | undefined;
  orgPath?: (org: string) => string;
}) {
  const { apps, orgs } = useWorkspace();
  const otherOrgs = orgPath ? (orgs.data?.slice(1) ?? []) : [];
  const choose = (value: string) =>
    navigate(value.startsWith(ORG) && orgPath ? orgPath(value.slice(ORG.length)) : pathFor(value || undefined));
  return (
    <label className="field field-inline">
      <span>App</span>
      <select
        value={appKey ?? (org && otherOrgs.some((each) => each.slug === org) ? `${ORG}${org}` : '')}
        onChange={(event) => choose(event.target.value)}
        disabled={!apps.data}
      >
        <option value="">{otherOrgs.length > 0 ? `All apps of ${orgs.data?.[0]?.name}` : 'All apps'}</option>
        {otherOrgs.map((each) => (
          <option key={each.slug} value={`${ORG}${each.slug}`}>
            All apps of {each.name}
          </option>
        ))}
        {apps.data?.map((app) => (
          <option key={app.appKey} value={app.appKey}>
            {app.name}
          </option>
        ))}
        {appKey && apps.data && !apps.data.some((app) => app.appKey === appKey) && (
          <option value={appKey}>{appKey}</option>
        )}
      </select>
    </label>
  );
}
