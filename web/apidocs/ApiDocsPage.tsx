// /api/docs: the API reference (issue 14). Renders the server's own OpenAPI document
// (/api/openapi.json) with a console that sends each operation with this browser's session or
// a pasted API key. A lazy screen of the web app: no library, no CDN, the app's CSP, and no
// stylesheet of its own (the few styles here are set through the DOM, which CSP allows),
// so the dashboard's first load carries none of it (docs/decisions.md, "API reference page").
import { useEffect, useId, useMemo, useRef, useState, type CSSProperties, type FormEvent, type ReactNode } from "react";
import useSWR from "swr";
import { PublicShell } from "../pages/PublicShell";
import { usePageTitle } from "../shell/usePageTitle";
import { Button } from "../ui/Button";
import { Field, Select, TextArea } from "../ui/Field";
import { Spinner } from "../ui/Spinner";
import { mediaTypes, outline, type JsonSchema, type Media, type OpenApiDocument } from "./schemaOutline";

type Parameter = { name: string; in: "path" | "query"; required?: boolean; description?: string; schema?: JsonSchema };
type Response = { description: string; content?: Record<string, Media>; headers?: Record<string, unknown> };
/** Error answers are shared by many operations: a reference into the document's components. */
type Listed = Response | { $ref: string };
type Operation = {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, Listed>;
};
type Auth = { mode: "session" | "key"; key: string };

const PRE: CSSProperties = {
  background: "var(--surface-2)",
  border: "1px solid var(--border)",
  borderRadius: 8,
  padding: "0.6rem 0.75rem",
  margin: 0,
  overflowX: "auto",
  fontSize: "0.85rem",
  whiteSpace: "pre-wrap",
  overflowWrap: "anywhere",
};
const SUMMARY: CSSProperties = { cursor: "pointer", display: "flex", gap: "0.5rem", alignItems: "baseline", flexWrap: "wrap", minHeight: 40, padding: "0.25rem 0" };
// Table cells may break long words (UNSUPPORTED_MEDIA_TYPE, paths), so a table fits a phone.
const CELL: CSSProperties = { overflowWrap: "anywhere" };
/**
 * A cell of plain text breaks anywhere only when it holds a long word: `anywhere` also lets the
 * table squeeze a column to one character, which stacked "status" and "400" letter by letter.
 */
const cellFor = (text: string): CSSProperties | undefined => (text.split(/\s+/).some((w) => w.length > 12) ? CELL : undefined);
const PATH: CSSProperties = { fontWeight: 600, overflowWrap: "anywhere" };
// A radio's label text wraps beside the dot, not under it (.row wraps its children).
const RADIO_LABEL: CSSProperties = { flexWrap: "nowrap", alignItems: "baseline" };

export function ApiDocsPage() {
  usePageTitle("API reference");
  const { data: doc, error, isLoading } = useSWR<OpenApiDocument>("/api/openapi.json");
  const [auth, setAuth] = useState<Auth>({ mode: "session", key: "" });

  let body: ReactNode;
  if (isLoading) body = <div className="empty"><Spinner label="Loading the API reference" /></div>;
  else if (error || !doc) body = <p className="empty" role="alert">{error?.message || "Failed to load the API reference"}</p>;
  else body = <Reference doc={doc} auth={auth} setAuth={setAuth} />;

  return (
    <PublicShell>
      <div className="stack">
        <h1>API reference</h1>
        {body}
      </div>
    </PublicShell>
  );
}

function Reference({ doc, auth, setAuth }: { doc: OpenApiDocument; auth: Auth; setAuth: (a: Auth) => void }) {
  const groups = useMemo(() => {
    const byTag = new Map<string, { method: string; path: string; op: Operation }[]>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops as Record<string, Operation>)) {
        const tag = op.tags?.[0] ?? "Other";
        if (!byTag.has(tag)) byTag.set(tag, []);
        byTag.get(tag)!.push({ method: method.toUpperCase(), path, op });
      }
    }
    return [...byTag];
  }, [doc]);
  const server = doc.servers?.[0]?.url ?? location.origin;

  return (
    <>
      <section className="card stack" aria-labelledby="api-intro">
        <h2 id="api-intro">{doc.info.title} {doc.info.version}</h2>
        <Markdown text={doc.info.description ?? ""} />
        <p>
          The machine-readable description: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1). Base URL: <code>{server}</code>.
        </p>
      </section>
      <AuthChooser auth={auth} setAuth={setAuth} />
      <nav aria-label="API sections" className="card">
        <ul className="row" style={{ listStyle: "none", margin: 0, padding: 0, gap: "0.25rem 1rem" }}>
          {groups.map(([tag]) => (
            <li key={tag}>
              <a href={`#${slug(tag)}`}>{tag}</a>
            </li>
          ))}
        </ul>
      </nav>
      {groups.map(([tag, ops]) => (
        <section key={tag} className="stack" aria-labelledby={slug(tag)}>
          <h2 id={slug(tag)}>{tag}</h2>
          {ops.map(({ method, path, op }) => (
            <OperationView key={`${method} ${path}`} method={method} path={path} op={op} doc={doc} auth={auth} server={server} />
          ))}
        </section>
      ))}
    </>
  );
}

function AuthChooser({ auth, setAuth }: { auth: Auth; setAuth: (a: Auth) => void }) {
  const name = useId();
  return (
    <section className="card stack" aria-labelledby="api-auth">
      <h2 id="api-auth">Try it: how requests are sent</h2>
      <fieldset className="stack">
        <legend className="sr-only">Send requests with</legend>
        <label className="row" style={RADIO_LABEL}>
          <input type="radio" name={name} checked={auth.mode === "session"} onChange={() => setAuth({ ...auth, mode: "session" })} style={{ width: "auto", minHeight: 0 }} />
          This browser's session (sign in first)
        </label>
        <label className="row" style={RADIO_LABEL}>
          <input type="radio" name={name} checked={auth.mode === "key"} onChange={() => setAuth({ ...auth, mode: "key" })} style={{ width: "auto", minHeight: 0 }} />
          An API key
        </label>
      </fieldset>
      {auth.mode === "key" && (
        <Field
          label="API key"
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={auth.key}
          onChange={(e) => setAuth({ ...auth, key: e.target.value.trim() })}
          placeholder="tl_…"
          hint="Sent only as the Authorization header of the requests you make here; kept nowhere. Make one in Settings."
        />
      )}
      {auth.mode === "key" && (
        // The curl commands name the key by a variable, so a copied command never carries it.
        <div className="stack" style={{ gap: "0.35rem" }}>
          <p className="muted" style={{ margin: 0 }}>
            The curl commands below read the key from <code>$THREADLINK_API_KEY</code>. Set it once in your shell, with your whole key in place of <code>tl_…</code>:
          </p>
          <pre style={PRE} aria-label="Set the key in your shell">export THREADLINK_API_KEY='tl_…'</pre>
        </div>
      )}
    </section>
  );
}

export function OperationView({ method, path, op, doc, auth, server }: { method: string; path: string; op: Operation; doc: OpenApiDocument; auth: Auth; server: string }) {
  const params = op.parameters ?? [];
  const bodies = mediaTypes(op.requestBody?.content, doc);
  const statuses = Object.entries(op.responses);
  return (
    <details className="card">
      <summary style={SUMMARY}>
        <span className="badge badge-primary">{method}</span>
        <code style={PATH}>{path}</code>
        <span className="muted">{op.summary}</span>
      </summary>
      <div className="stack" style={{ marginTop: "0.75rem" }}>
        {op.description && <Markdown text={op.description} />}
        {/* The document's description already says what a key needs; an open route says so here. */}
        {op.security?.length === 0 && <p className="muted">No sign-in needed.</p>}
        {params.length > 0 && (
          <div className="table-wrap">
            <table>
              <caption>Parameters</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">In</th>
                  <th scope="col">About</th>
                </tr>
              </thead>
              <tbody>
                {params.map((p) => (
                  <tr key={`${p.in}-${p.name}`}>
                    <td style={cellFor(p.name)}><code>{p.name}</code>{p.required ? "" : " (optional)"}</td>
                    <td>{p.in}</td>
                    <td style={CELL}>{p.description ?? p.schema?.description ?? outline(p.schema ?? {}, doc)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {/* Every media type the operation takes (the import: a CSV file or the JSON export), each with its own heading. */}
        {bodies.map((b) => (
          <div key={b.type} className="stack">
            <h3>Request body ({b.type})</h3>
            {bodies.length > 1 && <p className="muted" style={{ margin: 0 }}>Sent with <code>Content-Type: {b.type}</code>; one of {bodies.length} media types this operation takes.</p>}
            <pre style={PRE}>{b.shown ?? b.type}</pre>
          </div>
        ))}
        <h3>Responses</h3>
        <ul className="stack" style={{ listStyle: "none", margin: 0, padding: 0 }}>
          {statuses.map(([status, r]) => (
            <ResponseView key={status} status={status} response={r} doc={doc} />
          ))}
        </ul>
        <TryIt method={method} path={path} params={params} bodies={bodies} auth={auth} server={server} label={op.summary} open={op.security?.length === 0} />
      </div>
    </details>
  );
}

export function ResponseView({ status, response: listed, doc }: { status: string; response: Listed; doc: OpenApiDocument }) {
  const response = "$ref" in listed ? (doc.components?.responses?.[listed.$ref.split("/").pop()!] as Response | undefined) : listed;
  if (!response) return null;
  // An error's body is the one error shape, tabled once in the introduction.
  const bodies = Number(status) >= 400 ? [] : mediaTypes(response.content, doc);
  return (
    <li className="stack" style={{ gap: "0.35rem" }}>
      <p style={{ margin: 0 }}>
        <strong>{status}</strong> {inline(response.description)}
        {bodies.length > 0 && <span className="muted"> · {bodies.map((b) => b.type).join(", ")}</span>}
      </p>
      {bodies.map((b) => b.shown !== undefined && <pre key={b.type} style={PRE} aria-label={bodies.length > 1 ? `${status} as ${b.type}` : undefined}>{b.shown}</pre>)}
    </li>
  );
}

type Result = { status: number; statusText: string; type: string; body: string } | { failed: string };

const exampleText = (example: unknown) => (typeof example === "string" ? example : example === undefined ? "{}" : JSON.stringify(example, null, 2));

function TryIt(props: { method: string; path: string; params: Parameter[]; bodies: ReturnType<typeof mediaTypes>; auth: Auth; server: string; label: string; open: boolean }) {
  const { method, path, params, bodies, auth, server, label, open } = props;
  // Sent as the first media type unless another is chosen; choosing one starts from its example.
  const [chosen, setChosen] = useState(0);
  const bodyType = bodies[chosen]?.type;
  const hasBody = bodyType !== undefined;
  const isJson = bodies[chosen]?.json ?? false;
  const [values, setValues] = useState<Record<string, string>>({});
  const [body, setBody] = useState(() => exampleText(bodies[0]?.example));
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Result | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const sendButton = useRef<HTMLButtonElement>(null);

  const url = buildUrl(path, params, values);
  const curl = [
    `curl -i -X ${method} '${server}${url ?? path}'`,
    // An open route (health, sign-in, the redirect) takes neither a key nor a session.
    ...(open ? [] : [auth.mode === "key" ? `  -H "Authorization: Bearer $THREADLINK_API_KEY"` : `  -b 'tl_session=…'`]),
    ...(hasBody
      ? isJson
        ? ["  -H 'Content-Type: application/json'", `  -d '${compactJson(body).replaceAll("'", "'\\''")}'`]
        : [`  -H 'Content-Type: ${bodyType}'`, "  --data-binary @file"]
      : []),
  ].join(" \\\n");

  async function send(e: FormEvent) {
    e.preventDefault();
    setProblem(null);
    if (!url) return setProblem("Fill in every path parameter.");
    if (auth.mode === "key" && !auth.key) return setProblem("Paste an API key above, or choose this browser's session.");
    if (isJson) {
      try {
        JSON.parse(body);
      } catch {
        return setProblem("The body is not valid JSON.");
      }
    }
    setBusy(true);
    try {
      const headers: Record<string, string> = { accept: "application/json" };
      if (bodyType) headers["content-type"] = bodyType;
      if (auth.mode === "key") headers.authorization = `Bearer ${auth.key}`;
      // A key's request carries no cookie, so it is exactly what a script would send.
      const res = await fetch(url, { method, headers, body: hasBody ? body : undefined, credentials: auth.mode === "key" ? "omit" : "same-origin", redirect: "manual" });
      const type = res.headers.get("content-type") ?? "";
      let text = res.type === "opaqueredirect" ? "" : await res.text();
      if (type.includes("json")) {
        try {
          text = JSON.stringify(JSON.parse(text), null, 2);
        } catch {
          /* shown as sent */
        }
      }
      setResult(res.type === "opaqueredirect" ? { status: 302, statusText: "Redirect (not followed here)", type: "", body: "" } : { status: res.status, statusText: res.statusText, type, body: text });
    } catch (err) {
      setResult({ failed: err instanceof Error ? err.message : String(err) });
    } finally {
      setBusy(false);
    }
  }

  // Busy, the Send button was disabled and focus fell to the page's body: it comes back once the
  // button is enabled again, i.e. after the commit that ends the request (an animation frame
  // could run before that render, while the button was still disabled, and focus() did nothing).
  const wasBusy = useRef(false);
  useEffect(() => {
    if (wasBusy.current && !busy && document.activeElement === document.body) sendButton.current?.focus();
    wasBusy.current = busy;
  }, [busy]);

  return (
    <form className="stack card" onSubmit={send} noValidate aria-label={`Try ${label}`} style={{ background: "var(--bg)" }}>
      <h3>Try it</h3>
      {params.map((p) => (
        <Field
          key={`${p.in}-${p.name}`}
          label={`${p.name}${p.in === "query" ? " (query)" : ""}${p.required ? "" : " (optional)"}`}
          value={values[p.name] ?? ""}
          onChange={(e) => setValues((v) => ({ ...v, [p.name]: e.target.value }))}
          spellCheck={false}
          autoComplete="off"
        />
      ))}
      {bodies.length > 1 && (
        <Select
          label="Send the body as"
          value={String(chosen)}
          options={bodies.map((b, i) => ({ value: String(i), label: b.type }))}
          onChange={(e) => {
            const i = Number(e.target.value);
            setChosen(i);
            setBody(exampleText(bodies[i]?.example));
          }}
        />
      )}
      {hasBody && <TextArea label={isJson ? "Body (JSON)" : `Body (${bodyType})`} value={body} onChange={(e) => setBody(e.target.value)} spellCheck={false} style={{ fontFamily: "monospace", minHeight: 140 }} />}
      {problem && <p className="field-error" role="alert">{problem}</p>}
      <div className="row">
        <Button type="submit" busy={busy} ref={sendButton}>Send {method} request</Button>
      </div>
      <div className="stack" style={{ gap: "0.35rem" }}>
        <p className="muted" style={{ margin: 0 }}>The same request with curl:</p>
        <pre style={PRE} aria-label={`curl command for ${label}`}>{curl}</pre>
      </div>
      <div role="status" aria-live="polite" className="stack" style={{ gap: "0.35rem" }}>
        {result && "failed" in result && <p className="field-error">The request failed: {result.failed}</p>}
        {result && "status" in result && (
          <>
            <p style={{ margin: 0 }}>
              Response: <strong>{result.status}</strong> {result.statusText}
              {result.type && <span className="muted"> · {result.type}</span>}
            </p>
            {result.body && <pre style={{ ...PRE, maxHeight: 400, overflowY: "auto" }} tabIndex={0} aria-label="Response body">{result.body}</pre>}
          </>
        )}
      </div>
    </form>
  );
}

/** The request's address from the path template and the filled-in values; null when a path parameter is missing. */
function buildUrl(path: string, params: Parameter[], values: Record<string, string>): string | null {
  let missing = false;
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = values[name]?.trim();
    if (!v) missing = true;
    return encodeURIComponent(v ?? "");
  });
  if (missing) return null;
  const query = new URLSearchParams();
  for (const p of params) if (p.in === "query" && values[p.name]) query.set(p.name, values[p.name]!);
  const qs = query.toString();
  return qs ? `${filled}?${qs}` : filled;
}

function compactJson(text: string) {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

const slug = (s: string) => `tag-${s.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;

/** The document's descriptions: paragraphs, `code` and simple tables; nothing else is needed. */
function Markdown({ text }: { text: string }) {
  const blocks = text.split(/\n{2,}/);
  return (
    <>
      {blocks.map((block, i) => {
        const lines = block.split("\n");
        if (lines.every((l) => l.startsWith("|"))) {
          const rows = lines.filter((l) => !/^\|[\s-|]+\|$/.test(l)).map((l) => l.slice(1, -1).split(" | ").map((c) => c.trim()));
          const [head, ...rest] = rows;
          return (
            <div key={i} className="table-wrap">
              <table>
                <thead>
                  <tr>{head!.map((c, j) => <th key={j} scope="col" style={cellFor(c)}>{inline(c)}</th>)}</tr>
                </thead>
                <tbody>
                  {rest.map((r, j) => (
                    <tr key={j}>{r.map((c, k) => <td key={k} style={cellFor(c)}>{inline(c)}</td>)}</tr>
                  ))}
                </tbody>
              </table>
            </div>
          );
        }
        // CELL's wrapping: a CSV header row (createdAt,domain,shortCode,…) is one long word.
        return <p key={i} style={CELL}>{inline(block)}</p>;
      })}
    </>
  );
}

function inline(text: string): ReactNode[] {
  return text.split(/(`[^`]+`)/).map((part, i) => (part.startsWith("`") && part.endsWith("`") && part.length > 1 ? <code key={i}>{part.slice(1, -1)}</code> : part));
}
