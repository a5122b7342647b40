// Keys of an app's things in maps and sets: an event (its eventId), an issue (its fingerprint), an hour of receipt. The
// write path keys its batches, outcomes and stored events so; the issue list keys its page's assignees, unhandled flags
// and sparklines so, and the API reads them by it. The app key, NUL, the thing's own key: PostgreSQL text holds no NUL,
// so no two pairs make one key.
export const appKeyed = (appKey: string, key: string | number): string => `${appKey}\u0000${key}`;
