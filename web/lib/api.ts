// The one fetch wrapper and the one error type for the web app.
import { CAPPED_HEADER, NEXT_HEADER, TOTAL_HEADER } from "../../src/shared/paging";
export class ApiError extends Error {
  constructor(message: string, public status: number, public fields?: Record<string, string>) {
    super(message);
  }
}

/** The server's message from our error shape, else the raw text (spec: 'the response text'). */
function messageFrom(text: string): { message: string; fields?: Record<string, string> } {
  try {
    const body = JSON.parse(text);
    if (body && typeof body.error === "object" && typeof body.error.message === "string") {
      return { message: body.error.message, fields: body.error.fields };
    }
    if (body && typeof body.error === "string") return { message: body.error };
    if (body && typeof body.message === "string") return { message: body.message };
  } catch {
    /* not JSON: use the text itself */
  }
  return { message: text };
}

export const NO_ANSWER = "Could not reach the server. Check your connection and try again.";

/**
 * A file from the API, read by the page (web/ui/DownloadLink.tsx): its bytes, counted as they
 * come (`onBytes`), and the name its Content-Disposition gives. A refusal (one export at a time,
 * the heavy-call limit) is an ApiError with the server's message, not a browser download that
 * fails without a reason.
 */
export async function download(path: string, onBytes: (n: number) => void, signal: AbortSignal): Promise<{ blob: Blob; filename: string }> {
  let res: Response;
  try {
    res = await fetch(path, { signal, credentials: "same-origin" });
  } catch (e) {
    if (signal.aborted) throw e;
    throw new ApiError(NO_ANSWER, 0);
  }
  if (!res.ok || !res.body) {
    const { message, fields } = messageFrom(await res.text().catch(() => ""));
    throw new ApiError(message || `${res.status} ${res.statusText}`.trim(), res.status, fields);
  }
  const filename = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? path.split("/").pop() ?? "download";
  const reader = res.body.getReader();
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value as Uint8Array<ArrayBuffer>);
    n += value.byteLength;
    onBytes(n);
  }
  return { blob: new Blob(parts, { type: res.headers.get("content-type") ?? "application/octet-stream" }), filename };
}

export async function api<T = unknown>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  return (await request<T>(path, init)).body;
}

/** One page of a list (src/shared/paging.ts): its body, the total matching, and the next page's cursor. */
export type ApiPage<T> = { body: T; total: number; capped: boolean; next: string | null };

/** A GET of a paged list, with the page headers beside the body. */
export async function apiPage<T>(path: string): Promise<ApiPage<T>> {
  const { body, headers } = await request<T>(path, {});
  return {
    body,
    total: Number(headers.get(TOTAL_HEADER) ?? 0),
    capped: headers.get(CAPPED_HEADER) === "true",
    next: headers.get(NEXT_HEADER),
  };
}

/** swr's fetcher for paged lists: the key is the URL of the page. */
export const pageFetcher = <T,>(key: string) => apiPage<T>(key);

async function request<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal }): Promise<{ body: T; headers: Headers }> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? "GET",
      credentials: "include",
      signal: init.signal,
      headers: {
        accept: "application/json",
        "x-requested-with": "XMLHttpRequest",
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });
  } catch (e) {
    // An abort is the caller's own doing and keeps its name; anything else here means no answer
    // came at all (offline, server down). The browser's own words ("Failed to fetch", "Load
    // failed", "NetworkError when attempting…") differ per browser and say nothing to a person.
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw new ApiError(NO_ANSWER, 0);
  }
  if (!res.ok) {
    // Spec §8: 5xx reads '{status}: {statusText}'; other failures carry the server's text.
    if (res.status >= 500) throw new ApiError(`${res.status}: ${res.statusText || "Server error"}`, res.status);
    const { message, fields } = messageFrom(await res.text());
    throw new ApiError(message || `${res.status}: ${res.statusText}`, res.status, fields);
  }
  if (res.status === 204) return { body: undefined as T, headers: res.headers };
  const type = res.headers.get("content-type") ?? "";
  return { body: (await (type.includes("json") ? res.json() : res.text())) as T, headers: res.headers };
}

/** swr's fetcher: the key is the URL of a GET (spec §7 'Default query behaviour'). */
export const fetcher = <T,>(key: string | [string, ...unknown[]]) => api<T>(Array.isArray(key) ? key[0] : key);
