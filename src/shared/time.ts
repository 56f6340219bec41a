/** The one timestamp format stored and returned: ISO-8601 UTC with milliseconds. */
export const nowIso = () => new Date().toISOString();
export const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();
export const DAY_MS = 86_400_000;
