// One webhook attempt (issue 26): sign, check where it goes, POST, read a bounded answer.
// Outbound requests are a server-side request forgery risk: a user names the URL, the server
// calls it. So every address the name resolves to must be public (unless
// WEBHOOK_ALLOW_PRIVATE=true), a plain-HTTP request goes to the very address that was checked
// (no second lookup to rebind), redirects are never followed, and time and bytes are capped.
import { lookup } from "node:dns/promises";
import { ipv4Int, ipv6Words } from "../http/ip";
import { WEBHOOK_MSG } from "./schema";
import type { AttemptResult } from "./store";

/** Bytes of a receiver's answer read at most; the log keeps the first RESPONSE_SNIPPET characters. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const RESPONSE_SNIPPET = 1000;

/** The headers a receiver checks (README "Webhooks"). */
export const HEADER = { id: "Threadlink-Webhook-Id", timestamp: "Threadlink-Webhook-Timestamp", signature: "Threadlink-Webhook-Signature" } as const;

/**
 * `v1=` and the hex HMAC-SHA256, keyed with the secret, of `${id}.${timestamp}.${body}`. The
 * body is hashed as it is (bytes or text) after the prefix: a click chunk's ~100 KB is not
 * copied into one more string per endpoint.
 */
export function sign(secret: string, id: string, timestamp: number, body: string | Uint8Array) {
  return `v1=${new Bun.CryptoHasher("sha256", secret).update(`${id}.${timestamp}.`).update(body).digest("hex")}`;
}

const v4InRanges = (n: number, ranges: readonly [number, number][]) => ranges.some(([base, bits]) => bits === 0 || n >>> (32 - bits) === base >>> (32 - bits));

// Not reachable on the public internet, or not a unicast host at all (RFC 6890 and friends).
const PRIVATE_V4: [number, number][] = [
  [0x00000000, 8], // "this network"
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10 carrier-grade NAT
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // 169.254/16 link-local (cloud metadata lives here)
  [0xac100000, 12], // 172.16/12
  [0xc0000000, 24], // 192.0.0/24 protocol assignments
  [0xc0a80000, 16], // 192.168/16
  [0xc6120000, 15], // 198.18/15 benchmarking
  [0xe0000000, 4], // multicast
  [0xf0000000, 4], // reserved, broadcast
];

/**
 * Whether an address (IPv4 dotted quad or IPv6, brackets allowed) must not be called: loopback,
 * private, link-local, unique-local, multicast, unspecified, and IPv4 ranges however wrapped in
 * IPv6 (mapped, compatible, NAT64, 6to4). Anything that does not parse counts as refused.
 */
export function isPrivateAddress(address: string): boolean {
  const a = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const v4 = ipv4Int(a);
  if (v4 !== null) return v4InRanges(v4, PRIVATE_V4);
  const w = ipv6Words(a.split("%")[0]!);
  if (!w) return true;
  const embedded = (hi: number, lo: number) => isPrivateAddress(`${hi >>> 8}.${hi & 255}.${lo >>> 8}.${lo & 255}`);
  const zeros = (n: number) => w.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return true; // ::
  if (zeros(7) && w[7] === 1) return true; // ::1
  if (zeros(5) && w[5] === 0xffff) return embedded(w[6]!, w[7]!); // ::ffff:a.b.c.d
  if (zeros(6)) return true; // ::a.b.c.d, deprecated IPv4-compatible
  if (w[0] === 0x64 && w[1] === 0xff9b && w.slice(2, 6).every((x) => x === 0)) return embedded(w[6]!, w[7]!); // NAT64
  if (w[0] === 0x2002) return embedded(w[1]!, w[2]!); // 6to4
  if ((w[0]! & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((w[0]! & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((w[0]! & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((w[0]! & 0xff00) === 0xff00) return true; // multicast
  return false;
}

/**
 * Why a webhook URL is refused as written (before any lookup), or null. Without
 * `allowPrivate`, an address that is private or local as written (an IP literal in any form the
 * URL parser reads, or localhost) is refused here, when it is added: it could only fail at every
 * delivery until the endpoint is turned off. Names that resolve to one are refused at delivery.
 */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "Enter a full URL starting with https:// or http://";
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return "Enter a full URL starting with https:// or http://";
  if (u.username || u.password) return "Put no user name or password in the URL: check the signature instead";
  if (!allowPrivate) {
    const host = u.hostname.toLowerCase().replace(/\.$/, "");
    const literal = host.startsWith("[") ? host.slice(1, -1) : ipv4Int(host) !== null ? host : null;
    if ((literal !== null && isPrivateAddress(literal)) || host === "localhost" || host.endsWith(".localhost")) return WEBHOOK_MSG.local;
  }
  return null;
}

/**
 * The addresses to call for a URL's host: every one its name resolves to (or the literal),
 * each checked. Throws a message for the delivery log when one is refused. The URL parser has
 * already turned decimal, octal and hex IPv4 forms into dotted quads.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<string[]> {
  const host = url.hostname;
  const literal = host.startsWith("[") ? host.slice(1, -1) : ipv4Int(host) !== null ? host : null;
  const addresses = literal !== null ? [literal] : (await lookup(host, { all: true, verbatim: true })).map((r) => r.address);
  if (addresses.length === 0) throw new Error(`${host} does not resolve`);
  if (!allowPrivate) {
    const bad = addresses.find(isPrivateAddress);
    if (bad !== undefined) throw new Error(`Refused: ${host} resolves to a private or local address (${bad})`);
  }
  return addresses;
}

/** Reads at most MAX_RESPONSE_BYTES of a body, then lets the rest go. */
async function boundedText(res: Response) {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_RESPONSE_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES));
}

/** Sends one delivery; never throws: a refusal, a timeout or a 500 is a failed attempt. */
export async function send(
  // The body as UTF-8 bytes may be shared by several endpoints' attempts: it is only read.
  target: { url: string; secret: string; id: string; body: string | Uint8Array<ArrayBuffer> },
  opts: { allowPrivate: boolean; timeoutMs: number; userAgent: string },
): Promise<{ ok: boolean; result: AttemptResult }> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const url = new URL(target.url);
    const addresses = await resolveTarget(url, opts.allowPrivate);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": opts.userAgent,
      [HEADER.id]: target.id,
      [HEADER.timestamp]: String(timestamp),
      [HEADER.signature]: sign(target.secret, target.id, timestamp, target.body),
    };
    // Plain HTTP goes to the address checked, named in Host; HTTPS needs the name for its
    // certificate, so the connection looks it up again (README: the remaining rebinding window).
    let requestUrl = url;
    if (url.protocol === "http:") {
      requestUrl = new URL(url);
      const a = addresses[0]!;
      requestUrl.hostname = a.includes(":") ? `[${a}]` : a;
      headers.host = url.host;
    }
    const res = await fetch(requestUrl, { method: "POST", headers, body: target.body, redirect: "manual", signal: AbortSignal.timeout(opts.timeoutMs) });
    const text = await boundedText(res);
    const ok = res.status >= 200 && res.status < 300;
    return {
      ok,
      result: { status: res.status, latencyMs: elapsed(), response: text.slice(0, RESPONSE_SNIPPET), error: ok ? null : res.status >= 300 && res.status < 400 ? "Redirects are not followed" : null },
    };
  } catch (e) {
    const timedOut = e instanceof DOMException && (e.name === "TimeoutError" || e.name === "AbortError");
    return { ok: false, result: { status: null, latencyMs: elapsed(), response: null, error: timedOut ? `No answer within ${opts.timeoutMs / 1000} s` : String((e as Error).message ?? e).slice(0, 300) } };
  }
}
