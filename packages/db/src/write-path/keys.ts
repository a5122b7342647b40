// Keys of an app's things in maps and sets: an event (its eventId), an issue (its fingerprint: the write path's, and
// the issue pages' assignees, unhandled flags and sparklines, which the API reads by it), an hour of receipt. The app key, NUL, the thing's own key: PostgreSQL text holds no NUL, so no two pairs make one key.
export const appKeyed = (appKey: string, key: string | number): string => `${appKey}\u0000${key}`;
