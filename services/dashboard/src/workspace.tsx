// What every signed-in screen shares: who is signed in, their organizations and their apps (loaded once, reloaded
// after a change).
import { createContext, useContext } from 'react';
import type { App, Org, User } from './api';
import type { Query } from './query';

export interface Workspace {
  user: User | undefined;
  apps: Query<App[]>;
  orgs: Query<Org[]>;
}

export const WorkspaceContext = createContext<Workspace | undefined>(undefined);

export function useWorkspace(): Workspace {
  const workspace = useContext(WorkspaceContext);
  if (!workspace) throw new Error('useWorkspace outside the signed-in shell');
  return workspace;
}

export const appName = (apps: App[] | undefined, appKey: string) =>
  apps?.find((app) => app.appKey === appKey)?.name ?? appKey;
