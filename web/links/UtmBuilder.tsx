import { useState } from "react";
import useSWR from "swr";
import { Button } from "../ui/Button";
import { Field, Select } from "../ui/Field";
import { toast } from "../ui/Toast";
import { api, ApiError, fetcher } from "../lib/api";
import { UTM_KEYS, applyUtm, readUtm, type UtmKey, type UtmTemplateView } from "../../src/smart/schema";

const LABEL: Record<UtmKey, string> = { source: "Source", medium: "Medium", campaign: "Campaign", term: "Term", content: "Content" };
const TEMPLATES = "/api/utm-templates";

/**
 * The UTM builder of the create and edit dialogs (issue 24): its fields read and write the
 * utm_* parameters of the destination itself, so the link stores a plain URL and the redirect
 * does nothing extra. A saved template fills every field at once.
 */
export function UtmBuilder({ url, onUrl }: { url: string; onUrl: (url: string) => void }) {
  const [open, setOpen] = useState(false);
  const { data: templates, mutate } = useSWR<UtmTemplateView[]>(open ? TEMPLATES : null, fetcher);
  const [name, setName] = useState("");
  // The template last applied: it can be renamed or deleted here (the builder is where templates live).
  const [chosen, setChosen] = useState("");
  const [newName, setNewName] = useState("");
  const chosenTemplate = templates?.find((x) => String(x.id) === chosen);
  const current = readUtm(url);
  const disabled = current === null;

  const set = (k: UtmKey, value: string) => onUrl(applyUtm(url, { [k]: value }));
  const pickTemplate = (id: string) => {
    const t = templates?.find((x) => String(x.id) === id);
    if (t) onUrl(applyUtm(url, { source: t.source, medium: t.medium, campaign: t.campaign, term: t.term, content: t.content }));
  };
  function choose(id: string) {
    setChosen(id);
    setNewName(templates?.find((x) => String(x.id) === id)?.name ?? "");
    pickTemplate(id);
  }
  async function rename() {
    if (!chosenTemplate) return;
    const { id: _id, createdAt: _at, ...fields } = chosenTemplate;
    try {
      await api(`${TEMPLATES}/${chosenTemplate.id}`, { method: "PUT", body: { ...fields, name: newName } });
      toast({ title: "UTM template renamed" });
      await mutate();
    } catch (err) {
      toast({ title: "Could not rename the template", description: err instanceof ApiError ? err.message : undefined, variant: "destructive" });
    }
  }
  async function remove() {
    if (!chosenTemplate) return;
    try {
      await api(`${TEMPLATES}/${chosenTemplate.id}`, { method: "DELETE" });
      toast({ title: `UTM template "${chosenTemplate.name}" deleted` });
      setChosen("");
      await mutate();
    } catch (err) {
      toast({ title: "Could not delete the template", description: err instanceof ApiError ? err.message : undefined, variant: "destructive" });
    }
  }
  async function save() {
    if (!current) return;
    try {
      await api(TEMPLATES, { method: "POST", body: { name, ...current } });
      toast({ title: "UTM template saved" });
      setName("");
      await mutate();
    } catch (err) {
      toast({ title: "Could not save the template", description: err instanceof ApiError ? err.message : undefined, variant: "destructive" });
    }
  }

  return (
    <details className="utm-builder" open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>UTM parameters (Optional)</summary>
      <div className="stack">
        {disabled && <p className="muted">Enter a valid URL first.</p>}
        {templates && templates.length > 0 && (
          <Select label="Template" value="" onChange={(e) => choose(e.target.value)} options={[{ value: "", label: "Choose a saved template" }, ...templates.map((t) => ({ value: String(t.id), label: t.name }))]} />
        )}
        {chosenTemplate && (
          // The select stays on its prompt, so choosing the same template again applies it again.
          <div className="row" role="group" aria-label={`Applied template: ${chosenTemplate.name}`}>
            <Field
              label="Template name"
              value={newName}
              onChange={(e) => setNewName(e.target.value)}
              // As the save's name: Enter renames, it does not submit the dialog's form.
              onKeyDown={(e) => {
                if (e.key !== "Enter") return;
                e.preventDefault();
                if (newName.trim() !== "" && newName !== chosenTemplate.name) void rename();
              }}
            />
            <Button variant="secondary" onClick={() => void rename()} disabled={newName.trim() === "" || newName === chosenTemplate.name}>Rename template</Button>
            <Button variant="danger" onClick={() => void remove()}>Delete template</Button>
          </div>
        )}
        <div className="smart-grid">
          {UTM_KEYS.map((k) => (
            <Field key={k} label={`UTM ${LABEL[k].toLowerCase()}`} value={current?.[k] ?? ""} disabled={disabled} onChange={(e) => set(k, e.target.value)} autoCapitalize="off" />
          ))}
        </div>
        <div className="row">
          <Field
            label="Save these as a template named"
            value={name}
            onChange={(e) => setName(e.target.value)}
            // Enter here saves the template: it would otherwise submit the dialog's own form (create the link).
            onKeyDown={(e) => {
              if (e.key !== "Enter") return;
              e.preventDefault();
              if (!disabled && name.trim() !== "") void save();
            }}
            disabled={disabled}
          />
          <Button variant="secondary" onClick={() => void save()} disabled={disabled || name.trim() === ""}>Save template</Button>
        </div>
      </div>
    </details>
  );
}
