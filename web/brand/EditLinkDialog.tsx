import { useEffect, useState, type FormEvent } from "react";
import { Dialog } from "../ui/Dialog";
import { Button } from "../ui/Button";
import { Field, TextArea } from "../ui/Field";
import { toast } from "../ui/Toast";
import { api, ApiError } from "../lib/api";
import { DESCRIPTION_MAX, EditLinkBody, EditMainLinkBody, TITLE_MAX } from "../../src/links/schema";
import { API_BASE, type LinkView, type Tracker } from "../links/types";
import { toLocalInput } from "../links/format";
import { validateForm } from "../lib/forms";
import { parseTags } from "../links/tags";

type Errors = Partial<Record<"shortCode" | "originalUrl" | "title" | "description" | "expiresAt" | "tags", string>>;

const EMPTY = { shortCode: "", originalUrl: "", title: "", description: "", expiresAt: "", tags: "" };

/**
 * Spec §2 'Edit Link': Short Code, Destination URL, Title, Description (Optional), Save Changes.
 * On the Link Tracker the expiry can be set or cleared too; the code can be changed on both
 * trackers (the spec's edit payload has it), with a warning that the old short URL stops.
 */
export function EditLinkDialog({ link, tracker, onClose, onSaved }: { link: LinkView | null; tracker: Tracker; onClose: () => void; onSaved: (l: LinkView) => void }) {
  const main = tracker === "main";
  const [form, setForm] = useState(EMPTY);
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (link) setForm({ shortCode: link.shortCode, originalUrl: link.originalUrl, title: link.title, description: link.description ?? "", expiresAt: toLocalInput(link.expiresAt), tags: link.tags.join(", ") });
    setErrors({});
  }, [link]);

  // Typing in a field clears its error (its hint, e.g. the code's warning, shows again).
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => {
    setForm((f) => ({ ...f, [k]: e.target.value }));
    setErrors(({ [k]: _, ...rest }) => rest);
  };

  function mainBody(l: LinkView) {
    // datetime-local holds minutes in local time: an untouched field sends the stored expiry
    // back exactly (the server keeps an unchanged expiry even when it has passed).
    const untouched = form.expiresAt === toLocalInput(l.expiresAt);
    const expiresAt = untouched ? (l.expiresAt ?? "") : form.expiresAt ? new Date(form.expiresAt).toISOString() : "";
    return { shortCode: form.shortCode, originalUrl: form.originalUrl, title: form.title, description: form.description, expiresAt, tags: parseTags(form.tags) };
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!link) return;
    const body = main ? mainBody(link) : { id: link.id, shortCode: form.shortCode, originalUrl: form.originalUrl, title: form.title, description: form.description, tags: parseTags(form.tags) };
    const checked = validateForm(main ? EditMainLinkBody : EditLinkBody, body);
    if (!checked.ok) {
      setErrors(checked.errors as Errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const saved = await api<LinkView>(`${API_BASE[tracker]}/${link.id}`, { method: "PUT", body });
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
          <Field
            label="Short Code"
            value={form.shortCode}
            onChange={set("shortCode")}
            error={errors.shortCode}
            hint={link && form.shortCode.trim() !== link.shortCode ? "The old short URL, and QR codes made with it, will stop working." : undefined}
            autoCapitalize="off"
            autoCorrect="off"
            spellCheck={false}
            required
          />
          <Field label="Destination URL" type="url" inputMode="url" value={form.originalUrl} onChange={set("originalUrl")} error={errors.originalUrl} required />
          <Field label="Title" value={form.title} onChange={set("title")} error={errors.title} maxLength={TITLE_MAX + 50} required />
          <TextArea label="Description (Optional)" value={form.description} onChange={set("description")} error={errors.description} maxLength={DESCRIPTION_MAX + 50} />
          {main && <Field label="Expires (Optional)" type="datetime-local" value={form.expiresAt} onChange={set("expiresAt")} error={errors.expiresAt} hint="Leave empty for a link that never expires." />}
          <Field label="Tags (Optional)" value={form.tags} onChange={set("tags")} error={errors.tags} hint="Separate tags with commas. Removing a tag here keeps the tag for other links." autoCapitalize="off" />
          <div className="dialog-actions">
            <Button variant="secondary" onClick={onClose}>Cancel</Button>
            <Button type="submit" busy={busy}>Save Changes</Button>
          </div>
        </fieldset>
      </form>
    </Dialog>
  );
}
