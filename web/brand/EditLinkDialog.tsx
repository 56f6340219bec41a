import { useEffect, useState, type FormEvent } from "react";
import { Dialog } from "../ui/Dialog";
import { Button } from "../ui/Button";
import { Field, TextArea } from "../ui/Field";
import { toast } from "../ui/Toast";
import { api, ApiError } from "../lib/api";
import { EditLinkBody } from "../../src/links/schema";
import { API_BASE, type LinkView } from "../links/types";
import { validateForm } from "../lib/forms";

type Errors = Partial<Record<"shortCode" | "originalUrl" | "title" | "description", string>>;

/** Spec §2 'Edit Link': Short Code, Destination URL, Title, Description (Optional), Save Changes. */
export function EditLinkDialog({ link, onClose, onSaved }: { link: LinkView | null; onClose: () => void; onSaved: (l: LinkView) => void }) {
  const [form, setForm] = useState({ shortCode: "", originalUrl: "", title: "", description: "" });
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (link) setForm({ shortCode: link.shortCode, originalUrl: link.originalUrl, title: link.title, description: link.description ?? "" });
    setErrors({});
  }, [link]);

  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!link) return;
    const body = { id: link.id, ...form };
    const checked = validateForm(EditLinkBody, body);
    if (!checked.ok) {
      setErrors(checked.errors as Errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const saved = await api<LinkView>(`${API_BASE.brand}/${link.id}`, { method: "PUT", body });
      toast({ title: "Link updated successfully" });
      onSaved(saved);
      onClose();
    } catch (err) {
      if (err instanceof ApiError && err.fields) setErrors(err.fields as Errors);
      toast({ title: "Error updating link", description: err instanceof Error && err.message ? err.message : "Failed to update link", variant: "destructive" });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={link !== null} onClose={onClose} title="Edit Link">
      <form onSubmit={submit} noValidate>
        <fieldset className="stack" disabled={busy}>
          <Field label="Short Code" value={form.shortCode} onChange={set("shortCode")} error={errors.shortCode} autoCapitalize="off" autoCorrect="off" spellCheck={false} required />
          <Field label="Destination URL" type="url" inputMode="url" value={form.originalUrl} onChange={set("originalUrl")} error={errors.originalUrl} required />
          <Field label="Title" value={form.title} onChange={set("title")} error={errors.title} required />
          <TextArea label="Description (Optional)" value={form.description} onChange={set("description")} error={errors.description} />
          <div className="dialog-actions">
            <Button variant="secondary" onClick={onClose}>Cancel</Button>
            <Button type="submit" busy={busy}>Save Changes</Button>
          </div>
        </fieldset>
      </form>
    </Dialog>
  );
}
