// The whole dashboard: signed out, the sign-in and sign-up screens; signed in, the shell and the screen for the path.

import { errorCodeOf } from '@collector/client';
import { useEffect, useSyncExternalStore } from 'react';
import { client, session } from './api';
import { Link, navigate, paths, type Route, routeOf, sectionHref, useLocation } from './navigation';
import { useQuery } from './query';
import { ForgotPasswordScreen, InvitationScreen, ResetPasswordScreen } from './screens/account';
import { AlertsScreen } from './screens/alerts';
import { AppScreen } from './screens/app';
import { AppsScreen } from './screens/apps';
import { AuthScreen } from './screens/auth';
import { IssueScreen } from './screens/issue';
import { IssuesScreen } from './screens/issues';
import { OverviewScreen } from './screens/overview';
import { ReleasesScreen } from './screens/releases';
import { TeamScreen } from './screens/team';
import { TokensScreen } from './screens/tokens';
import { EmptyState } from './states';
import { WorkspaceContext } from './workspace';

/** Where to go after signing in: a path of this dashboard, never another site. */
function safeNext(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

export function Dashboard() {
  const token = useSyncExternalStore(session.subscribe, () => session.token);
  const location = useLocation();
  const route = routeOf(location.pathname);
  const signedIn = token !== undefined;
  const authScreen = route.screen === 'signin' || route.screen === 'signup';
  // Screens that work signed out: the links of the collector's e-mails (a reset; an invitation, whose sign-up form
  // takes it), and asking for a reset.
  const openScreen = route.screen === 'forgot' || route.screen === 'reset' || route.screen === 'invitation';

  useEffect(() => {
    if (!signedIn && !authScreen && !openScreen) {
      const query = location.search.toString();
      const here = location.pathname + (query ? `?${query}` : '');
      navigate(here === '/' ? paths.signin() : `${paths.signin()}?${new URLSearchParams({ next: here })}`, {
        replace: true,
      });
    } else if (signedIn && authScreen) {
      navigate(safeNext(location.search.get('next')), { replace: true });
    }
  }, [signedIn, authScreen, openScreen, location.pathname, location.search]);

  if (route.screen === 'forgot') return <ForgotPasswordScreen />;
  if (route.screen === 'reset') return <ResetPasswordScreen token={route.token} />;
  if (!signedIn && route.screen === 'invitation') return <AuthScreen mode="signup" invitation={route.token} />;
  if (!signedIn) return <AuthScreen mode={route.screen === 'signup' ? 'signup' : 'signin'} />;
  if (authScreen) return null; // on the way to the screen asked for
  return <SignedIn route={route} />;
}

type Here = { screen: Route['screen']; app: string | null };

// Overview and Issues lead back to where the user left them (filters, sort, page, period), with the app chosen here.
const sections = [
  {
    label: 'Overview',
    href: (here: Here) => sectionHref('overview', here),
    active: (route: Route) => route.screen === 'overview',
  },
  {
    label: 'Issues',
    href: (here: Here) => sectionHref('issues', here),
    active: (route: Route) => route.screen === 'issues' || route.screen === 'issue',
  },
  {
    label: 'Apps',
    href: () => paths.apps(),
    active: (route: Route) =>
      route.screen === 'apps' || route.screen === 'app' || route.screen === 'alerts' || route.screen === 'releases',
  },
  { label: 'Team', href: () => paths.team(), active: (route: Route) => route.screen === 'team' },
  { label: 'Tokens', href: () => paths.tokens(), active: (route: Route) => route.screen === 'tokens' },
];

function SignedIn({ route }: { route: Route }) {
  const me = useQuery(() => client.auth.me.query(), []);
  const apps = useQuery(async () => (await client.apps.list.query()).apps, []);
  const orgs = useQuery(async () => (await client.orgs.list.query()).orgs, []);
  const location = useLocation();

  // A new screen: put the keyboard and screen-reader focus on its heading, as a page load would.
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1')?.focus({ preventScroll: true });
  }, [location.pathname]);

  const signOut = async () => {
    let notice: string | undefined;
    try {
      await client.auth.logout.mutate();
    } catch (error) {
      // An expired session is as good as ended; otherwise the server still takes the token until it expires, and the
      // user should know that this browser forgot it but the session itself may live on.
      if (errorCodeOf(error) !== 'UNAUTHENTICATED') {
        notice =
          'You are signed out in this browser, but the collector could not be told, so the session stays valid on the server until it expires (30 days unused).';
      }
    }
    session.end(notice);
    navigate(paths.signin());
  };
  const here: Here = { screen: route.screen, app: location.search.get('app') };

  return (
    <WorkspaceContext.Provider value={{ user: me.data?.user, apps, orgs }}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link href={paths.overview()} className="brand">
          <span className="brand-mark" aria-hidden="true" />
          collector
        </Link>
        <nav aria-label="Sections" className="sections">
          {sections.map((section) => (
            <Link
              key={section.label}
              href={section.href(here)}
              aria-current={section.active(route) ? 'page' : undefined}
            >
              {section.label}
            </Link>
          ))}
        </nav>
        <div className="account">
          {me.data && <span className="account-email">{me.data.user.email}</span>}
          <button type="button" className="button button-quiet" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" className="content">
        {route.screen === 'overview' && <OverviewScreen />}
        {route.screen === 'issues' && <IssuesScreen />}
        {route.screen === 'issue' && <IssueScreen id={route.id} />}
        {route.screen === 'apps' && <AppsScreen />}
        {route.screen === 'app' && <AppScreen appKey={route.appKey} />}
        {route.screen === 'alerts' && <AlertsScreen appKey={route.appKey} />}
        {route.screen === 'releases' && <ReleasesScreen appKey={route.appKey} />}
        {route.screen === 'team' && <TeamScreen />}
        {route.screen === 'tokens' && <TokensScreen />}
        {route.screen === 'invitation' && <InvitationScreen token={route.token} />}
        {route.screen === 'not-found' && (
          <>
            <h1 tabIndex={-1}>Not found</h1>
            <EmptyState title="There is no such page.">
              <p>
                <Link href={paths.overview()}>Go to the overview</Link>
              </p>
            </EmptyState>
          </>
        )}
      </main>
    </WorkspaceContext.Provider>
  );
}
