// Links sent to people (invitations, password resets): built from PUBLIC_URL, never from the request's Host header.
export function dashboardLink(publicUrl: string, path: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${path}`;
}
