/**
 * A path on this site to navigate to, or null. Parsing with URL (not string checks) catches
 * every form browsers read as another host: "//evil.example", "/\evil.example", tabs inside.
 */
export function safeLocalPath(path: string | null | undefined, origin = location.origin): string | null {
  if (!path || !path.startsWith("/")) return null;
  try {
    const u = new URL(path, origin);
    return u.origin === origin ? u.pathname + u.search + u.hash : null;
  } catch {
    return null;
  }
}
