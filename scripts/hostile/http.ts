// A minimal HTTP/1.1 client on raw TCP for the hostile-input suite. fetch cannot send what an
// attacker sends: it normalises "/../" and drops duplicate headers, it refuses a Content-Length
// that disagrees with the body, and it hides whether the server answered before the body was
// all sent. Every request here is one connection with "Connection: close", so one request's
// damage cannot leak into the next one's timing.

export type RawResponse = {
  status: number;
  headers: Map<string, string[]>;
  body: Uint8Array;
  text: string;
  ms: number;
  /** Set when no complete response came back (timeout, reset before the status line). */
  error?: string;
};

export type RawRequest = {
  method: string;
  /** Sent byte for byte as the request target: no normalisation, no escaping. */
  target: string;
  /** In order, duplicates allowed. Host and Connection are added unless given. */
  headers?: [string, string][];
  body?: string | Uint8Array;
  /** Send the body with Transfer-Encoding: chunked in pieces of this many bytes. */
  chunkSize?: number;
  /** Leave out Content-Length (for chunked bodies, or to lie about the body). */
  noContentLength?: boolean;
  /** The whole request as bytes, for request lines no builder would write. */
  raw?: string | Uint8Array;
  timeoutMs?: number;
};

const enc = new TextEncoder();
const dec = new TextDecoder("utf-8", { fatal: false });
const CRLF2 = enc.encode("\r\n\r\n");

const bytes = (b: string | Uint8Array) => (typeof b === "string" ? enc.encode(b) : b);

function concat(parts: Uint8Array[]) {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function indexOf(hay: Uint8Array, needle: Uint8Array, from = 0) {
  outer: for (let i = from; i <= hay.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function buildRequest(req: RawRequest, host: string): Uint8Array {
  if (req.raw !== undefined) return bytes(req.raw);
  const headers = [...(req.headers ?? [])];
  const has = (name: string) => headers.some(([k]) => k.toLowerCase() === name);
  if (!has("host")) headers.unshift(["Host", host]);
  if (!has("connection")) headers.push(["Connection", "close"]);
  let body: Uint8Array = new Uint8Array(0);
  if (req.body !== undefined) {
    const b = bytes(req.body);
    if (req.chunkSize) {
      if (!has("transfer-encoding")) headers.push(["Transfer-Encoding", "chunked"]);
      const parts: Uint8Array[] = [];
      for (let o = 0; o < b.length; o += req.chunkSize) {
        const piece = b.subarray(o, Math.min(b.length, o + req.chunkSize));
        parts.push(enc.encode(`${piece.length.toString(16)}\r\n`), piece, enc.encode("\r\n"));
      }
      parts.push(enc.encode("0\r\n\r\n"));
      body = concat(parts);
    } else {
      if (!req.noContentLength && !has("content-length")) headers.push(["Content-Length", String(b.length)]);
      body = b;
    }
  } else if (req.method !== "GET" && req.method !== "HEAD" && !req.noContentLength && !has("content-length")) {
    headers.push(["Content-Length", "0"]);
  }
  const head = `${req.method} ${req.target} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\n\r\n`;
  // Header values may carry raw bytes (obs-text): "latin1" keeps each char as one byte.
  return concat([Buffer.from(head, "latin1"), body]);
}

function dechunk(b: Uint8Array): Uint8Array | null {
  const parts: Uint8Array[] = [];
  let o = 0;
  for (;;) {
    const eol = indexOf(b, enc.encode("\r\n"), o);
    if (eol < 0) return null;
    const size = parseInt(dec.decode(b.subarray(o, eol)).split(";")[0]!.trim(), 16);
    if (!Number.isFinite(size)) return null;
    if (size === 0) return concat(parts);
    if (eol + 2 + size > b.length) return null;
    parts.push(b.subarray(eol + 2, eol + 2 + size));
    o = eol + 2 + size + 2;
  }
}

/** Parses what has arrived; null while the response is incomplete. */
function parse(buf: Uint8Array, method: string, closed: boolean): Omit<RawResponse, "ms"> | null {
  const end = indexOf(buf, CRLF2);
  if (end < 0) return null;
  const lines = dec.decode(buf.subarray(0, end)).split("\r\n");
  const status = Number(lines[0]!.split(" ")[1]);
  const headers = new Map<string, string[]>();
  for (const line of lines.slice(1)) {
    const i = line.indexOf(":");
    if (i < 0) continue;
    const k = line.slice(0, i).trim().toLowerCase();
    headers.set(k, [...(headers.get(k) ?? []), line.slice(i + 1).trim()]);
  }
  const rest = buf.subarray(end + 4);
  let body: Uint8Array | null;
  if (method === "HEAD" || status === 204 || status === 304 || (status >= 100 && status < 200)) body = new Uint8Array(0);
  else if (headers.get("transfer-encoding")?.some((v) => v.toLowerCase().includes("chunked"))) body = dechunk(rest);
  else if (headers.has("content-length")) {
    const n = Number(headers.get("content-length")![0]);
    body = rest.length >= n ? rest.subarray(0, n) : null;
  } else body = closed ? rest : null;
  if (body === null) return null;
  return { status, headers, body, text: dec.decode(body) };
}

/** Sends one request on a fresh connection and reads the whole response (or times out). */
export function send(port: number, req: RawRequest): Promise<RawResponse> {
  const host = `127.0.0.1:${port}`;
  const payload = buildRequest(req, host);
  const timeoutMs = req.timeoutMs ?? 10_000;
  const started = performance.now();
  return new Promise((resolve) => {
    const received: Uint8Array[] = [];
    let done = false;
    let offset = 0;
    let sock: { write(b: Uint8Array): number; end(): void; terminate?(): void } | null = null;
    const finish = (r: Omit<RawResponse, "ms">) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      try {
        sock?.end();
      } catch {
        /* already closed */
      }
      resolve({ ...r, ms: performance.now() - started });
    };
    const fail = (error: string) => finish({ status: 0, headers: new Map(), body: new Uint8Array(0), text: "", error });
    const timer = setTimeout(() => fail(`no complete response within ${timeoutMs} ms`), timeoutMs);
    const pump = () => {
      // The server may answer (413) and close before the body is all written: that is fine.
      try {
        while (sock && offset < payload.length) {
          const n = sock.write(payload.subarray(offset, offset + 256 * 1024));
          if (n <= 0) return;
          offset += n;
        }
      } catch {
        /* closed by the server */
      }
    };
    const tryParse = (closed: boolean) => {
      const r = parse(concat(received), req.method, closed);
      if (r) finish(r);
      else if (closed) fail(received.length ? "connection closed mid-response" : "connection closed without a response");
    };
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(s) {
          sock = s;
          pump();
        },
        drain() {
          pump();
        },
        data(_s, chunk) {
          received.push(new Uint8Array(chunk));
          tryParse(false);
        },
        close() {
          tryParse(true);
        },
        error(_s, e) {
          if (!received.length) fail(`socket error: ${e.message}`);
        },
      },
    }).catch((e: Error) => fail(`connect failed: ${e.message}`));
  });
}
