import { useState, type FormEvent } from "react";
import { Dialog } from "../ui/Dialog";
import { Button } from "../ui/Button";
import { Field, TextArea } from "../ui/Field";
import { toast } from "../ui/Toast";
import { api, ApiError } from "../lib/api";
import { CreateLinkBody, DESCRIPTION_MAX, TITLE_MAX } from "../../src/links/schema";
import type { LinkView } from "./types";
import { validateForm } from "../lib/forms";
import { parseTags } from "./tags";
import { UtmBuilder } from "./UtmBuilder";
import { NO_PROTECTION, ProtectionFields, protectionBody } from "./ProtectionFields";

type Errors = Partial<Record<"originalUrl" | "title" | "description" | "shortCode" | "expiresAt" | "tags" | "smart", string>>;

/** The server names a smart setting's field `smart.…`: shown as the settings' one message. */
const fieldErrors = (fields: Record<string, string>): Errors => {
  const out: Record<string, string> = {};
  for (const [k, m] of Object.entries(fields)) out[k.startsWith("smart.") ? "smart" : k] ??= m;
  return out;
};

/** Spec §2 'Create Short Link': URL, Title, Description (Optional), plus an optional code and expiry. */
export function CreateLinkDialog({ open, onClose, apiBase, onCreated }: { open: boolean; onClose: () => void; apiBase: string; onCreated: (l: LinkView) => void }) {
  const [form, setForm] = useState({ originalUrl: "", title: "", description: "", shortCode: "", expiresAt: "", tags: "" });
  // Password and click limit at creation (issue 24), with the Smart settings dialog's fields.
  const [protection, setProtection] = useState(NO_PROTECTION);
  const [protectionOpen, setProtectionOpen] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    // datetime-local is the visitor's local time; the server stores UTC.
    const smart = protection.password || protection.maxClicks.trim() || protection.fallbackUrl.trim() ? protectionBody(protection) : undefined;
    const body = { ...form, expiresAt: form.expiresAt ? new Date(form.expiresAt).toISOString() : "", tags: parseTags(form.tags), ...(smart ? { smart } : {}) };
    const checked = validateForm(CreateLinkBody, body);
    if (!checked.ok) {
      setErrors(checked.errors as Errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const link = await api<LinkView>(apiBase, { method: "POST", body });
      toast({ title: "Short link created successfully" });
      setForm({ originalUrl: "", title: "", description: "", shortCode: "", expiresAt: "", tags: "" });
      setProtection(NO_PROTECTION);
      setProtectionOpen(false);
      onCreated(link);
      onClose();
    } catch (err) {
      if (err instanceof ApiError && err.fields) setErrors(fieldErrors(err.fields));
      toast({ title: "Error creating link", description: err instanceof Error && err.message ? err.message : "Failed to create short link", variant: "destructive" });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onClose={onClose} title="Create Short Link" description="Paste a web address and give it a title.">
      <form onSubmit={submit} noValidate>
        <fieldset className="stack" disabled={busy}>
          <Field label="URL" type="url" inputMode="url" placeholder="https://example.com/page" value={form.originalUrl} onChange={set("originalUrl")} error={errors.originalUrl} autoFocus required />
          <UtmBuilder url={form.originalUrl} onUrl={(originalUrl) => setForm((f) => ({ ...f, originalUrl }))} />
          <Field label="Title" value={form.title} onChange={set("title")} error={errors.title} maxLength={TITLE_MAX + 50} required />
          <TextArea label="Description (Optional)" value={form.description} onChange={set("description")} error={errors.description} maxLength={DESCRIPTION_MAX + 50} />
          <Field
            label="Custom short code (Optional)"
            value={form.shortCode}
            onChange={set("shortCode")}
            error={errors.shortCode}
            hint="3–50 letters, numbers, '-' or '_'. Leave empty for a random code."
            autoCapitalize="off"
            autoCorrect="off"
            spellCheck={false}
          />
          <Field label="Expires (Optional)" type="datetime-local" value={form.expiresAt} onChange={set("expiresAt")} error={errors.expiresAt} />
          <Field label="Tags (Optional)" value={form.tags} onChange={set("tags")} error={errors.tags} hint="Separate tags with commas, e.g. spring, newsletter." autoCapitalize="off" />
          {/* Open by itself when a setting is refused, so the message is seen beside its fields; the
              fields exist only while open (a folded "Fallback URL" would be one more "URL" field). */}
          <details className="create-protection" open={protectionOpen || Boolean(errors.smart)} onToggle={(e) => setProtectionOpen(e.currentTarget.open)}>
            <summary>Password and click limit (Optional)</summary>
            {(protectionOpen || errors.smart) && (
              <div className="stack">
                <ProtectionFields value={protection} onChange={(patch) => setProtection((p) => ({ ...p, ...patch }))} disabled={busy} />
                {errors.smart && <p className="field-error" role="alert">{errors.smart}</p>}
              </div>
            )}
          </details>
          <div className="dialog-actions">
            <Button variant="secondary" onClick={onClose}>Cancel</Button>
            <Button type="submit" busy={busy}>Create</Button>
          </div>
        </fieldset>
      </form>
    </Dialog>
  );
}
