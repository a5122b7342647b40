// Choosing one app or all of them; the choice lives in the URL (?app=), so it survives a reload and can be shared.
import { navigate } from './navigation';
import { useWorkspace } from './workspace';

export function AppFilter({ appKey, pathFor }: { appKey: string | undefined; pathFor: (appKey?: string) => string }) {
  const { apps } = useWorkspace();
  return (
    <label className="field field-inline">
      <span>App</span>
      <select
        value={appKey ?? ''}
        onChange={(event) => navigate(pathFor(event.target.value || undefined))}
        disabled={!apps.data}
      >
        <option value="">All apps</option>
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
