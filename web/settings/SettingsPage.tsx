import { useId, useState, type FormEvent } from "react";
import useSWR from "swr";
import { Link } from "wouter";
import { AppFooter, AppHeader } from "../shell/AppHeader";
import { usePageTitle } from "../shell/usePageTitle";
import { Button } from "../ui/Button";
import { ConfirmDialog, Dialog } from "../ui/Dialog";
import { Field, Select } from "../ui/Field";
import { Spinner } from "../ui/Spinner";
import { toast, toastError } from "../ui/Toast";
import { api, ApiError } from "../lib/api";
import { validateForm } from "../lib/forms";
import { copyLink, formatDate } from "../links/format";
import { WebhooksSection } from "./WebhooksSection";
import { CreateApiKeyBody, KEY_NAME_MAX, type ApiKeyView, type CreatedApiKey } from "../../src/apikeys/schema";

const KEYS = "/api/api-keys";
const SCOPE_OPTIONS = [
  { value: "read", label: "Read only" },
  { value: "read-write", label: "Read and write" },
];
const ONLY_OPTIONS = [
  { value: "", label: "Links and topics" },
  { value: "links", label: "Links only" },
  { value: "topics", label: "Topics only" },
];

const scopeLabel = (k: ApiKeyView) => `${k.scope === "read" ? "Read only" : "Read and write"}${k.only ? `, ${k.only} only` : ""}`;

type Errors = Partial<Record<"name" | "scope" | "only", string>>;

/** /settings: API keys for scripts (issue 14) and webhooks (issue 26). A key is shown in full once, right after it is made. */
export function SettingsPage() {
  usePageTitle("Settings");
  const { data, error, isLoading, mutate } = useSWR<ApiKeyView[]>(KEYS);
  const [form, setForm] = useState({ name: "", scope: "read-write", only: "" });
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKeyView | null>(null);
  const [revokeBusy, setRevokeBusy] = useState(false);
  const nameId = useId();

  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));

  async function create(e: FormEvent) {
    e.preventDefault();
    const checked = validateForm(CreateApiKeyBody, form);
    if (!checked.ok) {
      setErrors(checked.errors as Errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const key = await api<CreatedApiKey>(KEYS, { method: "POST", body: form });
      setCreated(key);
      setForm((f) => ({ ...f, name: "" }));
      await mutate();
    } catch (err) {
      if (err instanceof ApiError && err.fields) setErrors(err.fields as Errors);
      toastError(err, "Failed to create API key");
    } finally {
      setBusy(false);
    }
  }

  // The form was disabled while the key was made, so focus had left it for the page's body
  // before the dialog opened: closing the dialog brings it back to the key name.
  function closeCreated() {
    setCreated(null);
    requestAnimationFrame(() => document.getElementById(nameId)?.focus());
  }

  async function revoke() {
    if (!revoking) return;
    setRevokeBusy(true);
    // The Revoke button that opened the dialog goes with its key, and focus would fall to the
    // page's body: it moves to the next key's Revoke (the one before at the end), or to the form.
    const keys = data ?? [];
    const at = keys.findIndex((k) => k.id === revoking.id);
    const next = keys[at + 1] ?? keys[at - 1];
    try {
      await api(`${KEYS}/${revoking.id}`, { method: "DELETE" });
      toast({ title: "API key revoked" });
      setRevoking(null);
      await mutate();
      requestAnimationFrame(() => {
        const target = next ? document.querySelector<HTMLElement>(`[data-revoke="${next.id}"]`) : document.getElementById(nameId);
        target?.focus();
      });
    } catch (err) {
      toastError(err, "Failed to revoke API key");
    } finally {
      setRevokeBusy(false);
    }
  }

  let list;
  if (isLoading) list = <div className="empty"><Spinner label="Loading API keys" /></div>;
  else if (error && !data) list = <p className="empty" role="alert">{error.message || "Failed to load API keys"}</p>;
  else if (!data?.length) list = <p className="empty">You have no API keys yet.</p>;
  else
    list = (
      <ul className="link-list" aria-label="API keys">
        {data.map((k) => (
          <li key={k.id} className="card link-card">
            <h3 className="link-title">{k.name}</h3>
            <p className="row link-meta link-short">
              <code>{k.prefix}…</code>
              <span className="badge">{scopeLabel(k)}</span>
            </p>
            <p className="link-meta muted">
              Created {formatDate(k.createdAt)} · {k.lastUsedAt ? `Last used ${formatDate(k.lastUsedAt)}` : "Never used"}
            </p>
            <div className="row">
              <Button variant="danger" size="sm" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.name}`} data-revoke={k.id}>Revoke</Button>
            </div>
          </li>
        ))}
      </ul>
    );

  return (
    <div className="page">
      <AppHeader />
      <main id="main" tabIndex={-1} className="container stack">
        <h1>Settings</h1>
        <section className="card stack" aria-labelledby="api-keys-heading">
          <h2 id="api-keys-heading">API keys</h2>
          <p className="muted">
            Scripts send a key as <code>Authorization: Bearer tl_…</code> and act as you, within the key's scope. Keys never reach your account
            settings. A key is shown once, when it is made. What each route takes and answers, with a console to try it:{" "}
            <Link href="/api/docs">the API reference</Link>.
          </p>
          <form onSubmit={create} noValidate>
            <fieldset className="stack" disabled={busy}>
              <legend className="sr-only">Create an API key</legend>
              <Field id={nameId} label="Key name" value={form.name} onChange={set("name")} error={errors.name} maxLength={KEY_NAME_MAX + 20} placeholder="Deploy script" required />
              <div className="row">
                <Select label="Access" value={form.scope} onChange={set("scope")} options={SCOPE_OPTIONS} />
                <Select label="Reaches" value={form.only} onChange={set("only")} options={ONLY_OPTIONS} />
              </div>
              <div className="row">
                <Button type="submit" busy={busy}>Create API key</Button>
              </div>
            </fieldset>
          </form>
        </section>
        <section className="stack" aria-label="Your API keys">
          {list}
        </section>
        <WebhooksSection />
      </main>
      <AppFooter />

      <Dialog open={created !== null} onClose={closeCreated} title="API key created" description="Copy it now: it will not be shown again.">
        {created && (
          <div className="stack">
            {/* Focus starts on the key, selected, so Ctrl+C copies it at once (ariakit looks for data-autofocus). */}
            <Field label={`Key for ${created.name}`} value={created.key} readOnly data-autofocus="true" onFocus={(e) => e.currentTarget.select()} spellCheck={false} />
            <div className="dialog-actions">
              <Button variant="secondary" onClick={() => void copyLink(created.key, "API key copied to clipboard")}>Copy key</Button>
              <Button onClick={closeCreated}>Done</Button>
            </div>
          </div>
        )}
      </Dialog>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke API key"
        description={`Scripts using “${revoking?.name ?? ""}” stop working at once. This cannot be undone.`}
        confirmLabel="Revoke"
        busy={revokeBusy}
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      />
    </div>
  );
}
