// Screens by path, with the History API: real links (middle-click, copy link, keyboard) and the back button work.
import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useSyncExternalStore } from 'react';

export type Route =
  | { screen: 'signin' }
  | { screen: 'signup' }
  | { screen: 'overview' }
  | { screen: 'apps' }
  | { screen: 'app'; appKey: string }
  | { screen: 'alerts'; appKey: string }
  | { screen: 'releases'; appKey: string }
  | { screen: 'issues' }
  | { screen: 'issue'; id: string }
  | { screen: 'team' }
  | { screen: 'tokens' }
  | { screen: 'forgot' }
  | { screen: 'reset'; token: string }
  | { screen: 'invitation'; token: string }
  | { screen: 'not-found' };

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export function routeOf(pathname: string): Route {
  const parts = pathname.split('/').filter(Boolean);
  const [first, second, ...rest] = parts;
  if (
    first === 'apps' &&
    second !== undefined &&
    rest.length === 1 &&
    (rest[0] === 'alerts' || rest[0] === 'releases')
  ) {
    const appKey = decode(second);
    return appKey ? { screen: rest[0], appKey } : { screen: 'not-found' };
  }
  if (rest.length > 0) return { screen: 'not-found' };
  if (first === undefined) return { screen: 'overview' };
  if (second === undefined) {
    if (first === 'signin') return { screen: 'signin' };
    if (first === 'signup') return { screen: 'signup' };
    if (first === 'apps') return { screen: 'apps' };
    if (first === 'issues') return { screen: 'issues' };
    if (first === 'team') return { screen: 'team' };
    if (first === 'tokens') return { screen: 'tokens' };
    if (first === 'forgot-password') return { screen: 'forgot' };
    return { screen: 'not-found' };
  }
  const value = decode(second);
  if (value && first === 'apps') return { screen: 'app', appKey: value };
  if (value && first === 'issues') return { screen: 'issue', id: value };
  // The links sent by e-mail (from PUBLIC_URL): the token is the last segment.
  if (value && first === 'reset-password') return { screen: 'reset', token: value };
  if (value && first === 'invitations') return { screen: 'invitation', token: value };
  return { screen: 'not-found' };
}

/** A path with an optional `?app=` filter (an appKey is public; the session token never goes in a URL). */
export const paths = {
  overview: (appKey?: string) => withApp('/', appKey),
  issues: (appKey?: string) => withApp('/issues', appKey),
  issue: (id: string) => `/issues/${encodeURIComponent(id)}`,
  apps: () => '/apps',
  app: (appKey: string) => `/apps/${encodeURIComponent(appKey)}`,
  alerts: (appKey: string) => `/apps/${encodeURIComponent(appKey)}/alerts`,
  releases: (appKey: string) => `/apps/${encodeURIComponent(appKey)}/releases`,
  signin: () => '/signin',
  signup: () => '/signup',
  team: (org?: string) => (org ? `/team?${new URLSearchParams({ org })}` : '/team'),
  tokens: () => '/tokens',
  forgot: () => '/forgot-password',
};

function withApp(path: string, appKey: string | undefined) {
  return appKey ? `${path}?${new URLSearchParams({ app: appKey })}` : path;
}

const subscribe = (onChange: () => void) => {
  window.addEventListener('popstate', onChange);
  return () => window.removeEventListener('popstate', onChange);
};
const currentLocation = () => window.location.pathname + window.location.search;

export function useLocation(): { pathname: string; search: URLSearchParams; href: string } {
  const href = useSyncExternalStore(subscribe, currentLocation);
  const url = new URL(href, window.location.origin);
  return { pathname: url.pathname, search: url.searchParams, href };
}

/** Goes to `href`; `state` rides along in the history entry (the issue list keeps its earlier pages' cursors there). */
export function navigate(href: string, options: { replace?: boolean; state?: unknown } = {}) {
  if (href === currentLocation() && options.state === undefined) return;
  if (options.replace) window.history.replaceState(options.state ?? null, '', href);
  else window.history.pushState(options.state ?? null, '', href);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/**
 * The last address of each section with a list (overview, issues): the section links lead back to it, so filters,
 * sort and page survive a visit elsewhere. The app filter moves along when it is changed on the other section.
 */
const lastHref: Partial<Record<'overview' | 'issues', string>> = {};

export function rememberSection(section: 'overview' | 'issues', href: string) {
  lastHref[section] = href;
}

export function sectionHref(
  section: 'overview' | 'issues',
  current: { screen: Route['screen']; app: string | null },
): string {
  const remembered = lastHref[section] ?? (section === 'overview' ? '/' : '/issues');
  if (current.screen !== 'overview' && current.screen !== 'issues') return remembered;
  const url = new URL(remembered, window.location.origin);
  const rememberedApp = url.searchParams.get('app');
  if (rememberedApp === current.app) return remembered;
  // Another app chosen since: that app's list from its start.
  const fresh = new URLSearchParams(
    [...url.searchParams].filter(([name]) => name !== 'app' && name !== 'cursor' && name !== 'page'),
  );
  if (current.app) fresh.set('app', current.app);
  const query = fresh.toString();
  return url.pathname + (query ? `?${query}` : '');
}

/** An ordinary link that changes screens without reloading the page. */
export function Link({ href, onClick, ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    event.preventDefault();
    navigate(href);
    window.scrollTo(0, 0);
  };
  return <a href={href} onClick={follow} {...props} />;
}

/** The browser tab names the screen, as separate pages would. */
export function useTitle(title: string) {
  useEffect(() => {
    document.title = title ? `${title} · collector` : 'collector';
  }, [title]);
}
