// The one small JSON client the hostile suite and the fault script drive the binary with: a
// same-origin request (so the Origin check passes), never following redirects, the body read
// once as text and parsed when it is JSON.
export type ApiAnswer = { status: number; json: any; text: string; headers: Headers };

export function apiClient(base: string) {
  return async function api(method: string, path: string, cookie: string | null, body?: unknown): Promise<ApiAnswer> {
    const headers: Record<string, string> = { origin: base };
    if (cookie) headers.cookie = cookie;
    if (body !== undefined) headers["content-type"] = "application/json";
    const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), redirect: "manual" });
    const text = await r.text();
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: r.status, json, text, headers: r.headers };
  };
}
