// 405 with `Allow` for a known API path asked with a method it does not serve (a client trying
// PATCH or OPTIONS learns what the path takes instead of a 404 that says it does not exist).
// The table is derived from the router itself, so a new route is covered without a list.

type Route = { method: string; path: string };

/**
 * `allowedFor(path)`: the methods the app's routes serve at `path` (HEAD wherever GET is), or an
 * empty list when no route has that path. Built on first use, after every route is mounted.
 */
export function allowedMethods(routes: () => readonly Route[]) {
  let table: { pattern: RegExp; methods: Set<string> }[] | null = null;
  const build = () => {
    const byPath = new Map<string, Set<string>>();
    for (const r of routes()) {
      // Catch-alls (the API's 404, the web app) say nothing about which paths exist.
      if (!r.path.startsWith("/api/") || r.path.includes("*") || r.method === "ALL") continue;
      // A group's root is mounted as "/api/links/" and served at "/api/links" too.
      const path = r.path.replace(/\/$/, "");
      let methods = byPath.get(path);
      if (!methods) byPath.set(path, (methods = new Set()));
      methods.add(r.method);
      if (r.method === "GET") methods.add("HEAD");
    }
    const literal = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
    return [...byPath].map(([path, methods]) => ({
      pattern: new RegExp(`^${path.split("/").map((seg) => (seg.startsWith(":") ? "[^/]+" : literal(seg))).join("/")}/?$`),
      methods,
    }));
  };
  return (path: string): string[] => {
    table ??= build();
    const found = new Set<string>();
    for (const row of table) if (row.pattern.test(path)) for (const m of row.methods) found.add(m);
    return [...found].sort();
  };
}
