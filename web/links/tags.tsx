import { useEffect, useState, type FormEvent } from "react";
import useSWR from "swr";
import { Dialog } from "../ui/Dialog";
import { Button } from "../ui/Button";
import { Field, Select } from "../ui/Field";
import { toast } from "../ui/Toast";
import { api, fetcher } from "../lib/api";
import { TAG_COLORS, TAG_NAME_MAX, type TagAnalytics, type TagColor, type TagView } from "../../src/tags/schema";

/** The signed-in user's tags (both trackers share them), A→Z. */
export function useTags() {
  const { data, mutate } = useSWR<TagView[]>("/api/tags", fetcher);
  return { tags: data ?? [], refreshTags: () => void mutate() };
}

/** "spring, Sale ,," → ["spring", "Sale"]: what a Tags field holds, as the API takes it. */
export const parseTags = (text: string) => [...new Set(text.split(",").map((t) => t.trim()).filter(Boolean))];

const COLOR_OPTIONS = TAG_COLORS.map((c) => ({ value: c, label: c[0]!.toUpperCase() + c.slice(1) }));

/**
 * A link's tags as small chips: the name in the page's own text colour (so every colour reads
 * in light and dark mode) beside a dot of the tag's colour.
 */
export function TagChips({ names, colors }: { names: string[]; colors: Map<string, TagColor> }) {
  if (names.length === 0) return null;
  return (
    <ul className="tag-list" aria-label="Tags">
      {names.map((n) => (
        <li key={n} className="tag">
          <span className={`tag-dot tag-${colors.get(n.toLowerCase()) ?? "gray"}`} aria-hidden="true" />
          {n}
        </li>
      ))}
    </ul>
  );
}

/** A tag's combined clicks (GET /api/tags/{id}/analytics): the total, the last 30 days, its top links. */
function TagClicks({ tag }: { tag: TagView }) {
  const { data, error } = useSWR<TagAnalytics>(`/api/tags/${tag.id}/analytics?days=30`, fetcher);
  if (error) return <p className="field-error" role="alert">Failed to load the tag's clicks</p>;
  if (!data) return <p className="muted" role="status">Loading clicks…</p>;
  const month = data.days.reduce((n, d) => n + d.count, 0);
  return (
    <div className="tag-clicks" role="status">
      <p>
        <strong>{data.totalClicks.toLocaleString("en")}</strong> {data.totalClicks === 1 ? "click" : "clicks"} in all, {month.toLocaleString("en")} in the last 30 days, on{" "}
        {data.tag.linkCount.toLocaleString("en")}{" "}
        {data.tag.linkCount === 1 ? "link" : "links"}.
      </p>
      {data.topLinks.length > 0 && (
        <ol className="tag-top" aria-label={`Most clicked links tagged ${tag.name}`}>
          {data.topLinks.map((l) => (
            <li key={l.id}>
              <span dir="auto">{l.title}</span> <span className="muted">{l.clickCount.toLocaleString("en")}</span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

/** One tag's row in the Manage tags dialog: rename, recolour, delete, and its clicks on demand. */
function TagEditor({ tag, onChanged }: { tag: TagView; onChanged: () => void }) {
  const [name, setName] = useState(tag.name);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [showClicks, setShowClicks] = useState(false);
  useEffect(() => setName(tag.name), [tag.name]);

  async function save(change: { name?: string; color?: TagColor }) {
    setBusy(true);
    try {
      await api(`/api/tags/${tag.id}`, { method: "PATCH", body: change });
      setError(undefined);
      onChanged();
    } catch (e) {
      setError(e instanceof Error ? e.message : "Failed to save the tag");
    } finally {
      setBusy(false);
    }
  }
  async function remove() {
    setBusy(true);
    try {
      await api(`/api/tags/${tag.id}`, { method: "DELETE" });
      toast({ title: `Tag "${tag.name}" deleted` });
      onChanged();
    } catch (e) {
      toast({ title: "Error", description: e instanceof Error ? e.message : "Failed to delete the tag", variant: "destructive" });
      setBusy(false);
    }
  }
  return (
    <li className="tag-editor">
      <form
        className="tag-editor-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim() !== tag.name) void save({ name });
        }}
      >
        <Field label={`Name of tag ${tag.name}`} hideLabel value={name} maxLength={TAG_NAME_MAX + 10} onChange={(e) => setName(e.target.value)} onBlur={() => name.trim() !== tag.name && void save({ name })} error={error} disabled={busy} />
        <Select label={`Colour of tag ${tag.name}`} hideLabel value={tag.color} options={COLOR_OPTIONS} onChange={(e) => void save({ color: e.target.value as TagColor })} disabled={busy} />
        <span className="muted tag-count">{tag.linkCount === 1 ? "1 link" : `${tag.linkCount.toLocaleString("en")} links`}</span>
        <Button variant="secondary" size="sm" onClick={() => setShowClicks((v) => !v)} aria-expanded={showClicks} aria-label={`Clicks of tag ${tag.name}`}>Clicks</Button>
        <Button variant="secondary" size="sm" onClick={remove} disabled={busy} aria-label={`Delete tag ${tag.name}`}>Delete</Button>
      </form>
      {showClicks && <TagClicks tag={tag} />}
    </li>
  );
}

/** Manage tags: add one, rename, recolour or delete each (its links keep going, without it). */
export function TagsDialog({ open, onClose, onChanged }: { open: boolean; onClose: () => void; onChanged: () => void }) {
  const { tags, refreshTags } = useTags();
  const [name, setName] = useState("");
  const [color, setColor] = useState<TagColor>("gray");
  const [error, setError] = useState<string | undefined>();
  const changed = () => {
    refreshTags();
    onChanged();
  };
  async function add(e: FormEvent) {
    e.preventDefault();
    try {
      await api("/api/tags", { method: "POST", body: { name, color } });
      setName("");
      setError(undefined);
      changed();
    } catch (err) {
      setError(err instanceof Error ? err.message : "Failed to add the tag");
    }
  }
  return (
    <Dialog open={open} onClose={onClose} title="Manage tags" description="Tags label links on both trackers. Renaming or deleting one changes every link that has it.">
      <form className="tag-add" onSubmit={add} noValidate>
        <Field label="New tag" value={name} maxLength={TAG_NAME_MAX + 10} onChange={(e) => setName(e.target.value)} error={error} />
        <Select label="Colour" value={color} options={COLOR_OPTIONS} onChange={(e) => setColor(e.target.value as TagColor)} />
        <Button type="submit">Add tag</Button>
      </form>
      {tags.length === 0 ? (
        <p className="muted">No tags yet. Add one here, or type tags when you create or edit a link.</p>
      ) : (
        <ul className="tag-editors" aria-label="Your tags">
          {tags.map((t) => (
            <TagEditor key={t.id} tag={t} onChanged={changed} />
          ))}
        </ul>
      )}
      <div className="dialog-actions">
        <Button variant="secondary" onClick={onClose}>Done</Button>
      </div>
    </Dialog>
  );
}
