import { useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { Link, useLocation, useParams } from "wouter";
import { AppFooter, AppHeader } from "../shell/AppHeader";
import { useUser } from "../lib/auth";
import { Button } from "../ui/Button";
import { ConfirmDialog } from "../ui/Dialog";
import { Field, Select, TextArea } from "../ui/Field";
import { Menu } from "../ui/Menu";
import { ClampedText } from "../ui/ClampedText";
import { FullPageSpinner, Spinner } from "../ui/Spinner";
import { toast, toastError } from "../ui/Toast";
import { act } from "../lib/act";
import { focusAfterRemoval, neighbourOf } from "../lib/focus";
import { arrange, formatDate, refetchTitles, seriesOf, titlesApi, topicLabel, useCanonicalSlug, useInlineEditor, useTitles, useTopic, type SortKey, type Title, type ViewKey } from "./data";
import { HIGHLIGHT_MS, TopicProblem } from "./TopicPage";
import "./titles.css";
import { usePageTitle } from "../shell/usePageTitle";

const PRODUCT = "Messages";
const SORTS = [
  { value: "newest", label: "Newest" },
  { value: "oldest", label: "Oldest" },
  { value: "custom", label: "Custom Order" },
];
const VIEWS = [
  { value: "personal", label: "Personal" },
  { value: "shared", label: "Shared" },
];

/** /:username/:topicSlug/:titleSlug: every version (message) of one title. */
export function MessageListPage() {
  const { username, topicSlug, titleSlug: slug } = useParams<{ username: string; topicSlug: string; titleSlug: string }>();
  const topic = useTopic(username, topicSlug);
  const titles = useTitles(username, topicSlug);
  const { user } = useUser();
  const [, navigate] = useLocation();
  const [sort, setSort] = useState<SortKey>("newest");
  const [view, setView] = useState<ViewKey>("personal");
  const [editing, setEditing] = useState<number | null>(null);
  const [highlight, setHighlight] = useState<number | null>(null);
  const [creating, setCreating] = useState(false);
  const openTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  // Leaving the page before the 2 s are up must not pull the user back to the new message.
  useEffect(() => () => clearTimeout(openTimer.current), []);

  const series = useMemo(() => seriesOf(titles.data, slug), [titles.data, slug]);
  useCanonicalSlug(slug, series[0]?.slug);
  const shown = useMemo(() => arrange(series, sort, view, user?.id, "version"), [series, sort, view, user?.id]);
  usePageTitle(topic.error ? "Topic Not Found" : topic.data && titles.data ? (series[0]?.name ?? slug) : undefined);

  useEffect(() => {
    if (highlight === null) return;
    const t = setTimeout(() => setHighlight(null), HIGHLIGHT_MS);
    return () => clearTimeout(t);
  }, [highlight]);

  if (topic.isLoading || (titles.isLoading && !titles.data)) return <FullPageSpinner />;
  if (topic.error || !topic.data) return <TopicProblem error={topic.error} />;
  const t = topic.data;
  const canWrite = t.role !== "viewer";
  const api = titlesApi(username, topicSlug);
  const topicHref = `/${t.username}/${t.linkSlug}`;
  const listHref = `${topicHref}/${series[0]?.slug ?? slug}`;
  const latest = series.reduce<Title | null>((m, x) => (!m || x.version > m.version ? x : m), null);
  const name = latest?.name ?? slug;

  // Spec §4 'New message': highest version + 1 with the same name and notes; the new card is
  // highlighted for 2 seconds, then the app opens it.
  async function newMessage() {
    if (!latest) return;
    setCreating(true);
    try {
      const made = await api.create({ name: latest.name, originalName: latest.originalName, notes: latest.notes, version: latest.version + 1 });
      await refetchTitles(username, topicSlug);
      toast({ title: "New message created successfully" });
      setHighlight(made.id);
      openTimer.current = setTimeout(() => navigate(`${listHref}/${made.version}`), HIGHLIGHT_MS);
    } catch (e) {
      toastError(e, "Failed to create new message");
      setCreating(false);
    }
  }

  return (
    <div className="page">
      <AppHeader />
      <main id="main" tabIndex={-1} className="container titles-page stack">
        <div className="titles-head">
          <Link href={topicHref} className="btn btn-ghost btn-icon" aria-label={`Back to ${t.name}`}>←</Link>
          <nav aria-label="Breadcrumb" className="breadcrumb">
            <ol>
              <li>
                <Link href={topicHref}>{topicLabel(t)}</Link>
              </li>
              <li aria-current="page">{name}</li>
            </ol>
          </nav>
        </div>
        <div className="titles-toolbar">
          <h1 className="list-title" dir="auto">{name}</h1>
          <span className="spacer" />
          {canWrite && latest && (
            <Button onClick={newMessage} busy={creating}>New Message</Button>
          )}
        </div>
        <div className="titles-toolbar">
          <Select label="View" options={VIEWS} value={view} onChange={(e) => setView(e.target.value as ViewKey)} />
          <Select label="Sort" options={SORTS} value={sort} onChange={(e) => setSort(e.target.value as SortKey)} />
        </div>
        {titles.error ? (
          <p className="field-error" role="alert">{titles.error instanceof Error ? titles.error.message : "Could not load the messages."}</p>
        ) : series.length === 0 ? (
          <div className="empty stack">
            <p>This title has no messages. It may have been deleted.</p>
            <p>
              <Link href={topicHref}>Back to {t.name}</Link>
            </p>
          </div>
        ) : shown.length === 0 ? (
          <p className="empty">No messages from other people yet.</p>
        ) : (
          <ul className="message-list">
            {shown.map((m) => (
              <MessageCard
                key={m.id}
                message={m}
                href={`${listHref}/${m.version}`}
                highlighted={highlight === m.id}
                editing={editing === m.id}
                canWrite={canWrite}
                canDelete={t.role === "owner"}
                onEdit={() => setEditing(m.id)}
                onDone={() => setEditing(null)}
                onSave={async (displayName, notes) => {
                  await api.update(m.id, { displayName, notes });
                  await refetchTitles(username, topicSlug);
                }}
                onDelete={async () => {
                  await api.remove(m.id);
                  await refetchTitles(username, topicSlug);
                }}
              />
            ))}
          </ul>
        )}
        {!titles.data && <Spinner label="Loading messages" />}
      </main>
      <AppFooter />
    </div>
  );
}

function MessageCard(props: {
  message: Title;
  href: string;
  highlighted: boolean;
  editing: boolean;
  canWrite: boolean;
  canDelete: boolean;
  onEdit: () => void;
  onDone: () => void;
  onSave: (displayName: string, notes: string) => Promise<void>;
  onDelete: () => Promise<void>;
}) {
  const { message: m } = props;
  const [, navigate] = useLocation();
  const [title, setTitle] = useState(m.displayName ?? "");
  const [notes, setNotes] = useState(m.notes);
  const [busy, setBusy] = useState(false);
  const editor = useInlineEditor(props.editing, props.onDone, busy);
  const [confirm, setConfirm] = useState(false);
  const rowRef = useRef<HTMLLIElement>(null);
  const label = `Message ${m.version}`;

  // Each edit starts from the stored values: Cancel discards (spec §4 'Message list edit').
  useEffect(() => {
    if (props.editing) {
      setTitle(m.displayName ?? "");
      setNotes(m.notes);
    }
  }, [props.editing, m.displayName, m.notes]);

  async function save(e: FormEvent) {
    e.preventDefault();
    if (await act(setBusy, () => props.onSave(title, notes), "Changes saved successfully", "Failed to update message")) props.onDone();
  }

  async function remove() {
    const neighbour = neighbourOf(rowRef.current);
    if (await act(setBusy, props.onDelete, "Message deleted successfully", "Failed to delete message")) {
      setConfirm(false);
      // The card is gone: focus goes to the next card's menu, else the page's heading.
      focusAfterRemoval(neighbour, "[data-more-actions] button, .title-actions button", () => document.querySelector("main h1"));
    }
  }

  return (
    <li ref={rowRef} className={`message-card card ${props.highlighted ? "is-new" : ""}`} aria-label={label}>
      {props.editing ? (
        <form className="stack" onSubmit={save} onKeyDown={editor.onKeyDown} aria-label={`Edit ${label}`}>
          <Field label="Title" value={title} onChange={(e) => setTitle(e.target.value)} placeholder="Message bar title" autoFocus />
          <TextArea label="Notes" value={notes} onChange={(e) => setNotes(e.target.value)} placeholder="Add notes..." rows={3} className="notes-field" />
          <div className="row">
            <Button type="submit" busy={busy}>Save</Button>
            <Button variant="secondary" onClick={props.onDone}>Cancel</Button>
          </div>
        </form>
      ) : (
        <>
          <div className="message-main">
            <h2 className="message-name" dir="auto">{m.displayName || m.name}</h2>
            <p className="message-meta">
              <span className="badge badge-primary">{label}</span>{" "}
              <time dateTime={m.createdAt}>{formatDate(m.createdAt)}</time>
              {m.createdByUsername && <span className="muted"> · {m.createdByUsername}</span>}
            </p>
            {/* The message itself (issue 25: the cards showed the notes but not the message). */}
            {m.keyPhrase && <ClampedText className="message-text" text={m.keyPhrase} />}
            {m.notes && <ClampedText className="title-notes" text={m.notes} />}
          </div>
          <div className="title-actions">
            <Link href={props.href} className="btn btn-primary btn-sm" aria-label={`Open ${label}`}>Open</Link>
            {props.canWrite && (
              <Button ref={editor.opener} variant="secondary" size="sm" onClick={props.onEdit} aria-label={`Edit ${label}`}>Edit</Button>
            )}
            <Menu
              label={`More actions for ${label}`}
              button={<span aria-hidden="true">⋯</span>}
              items={[
                { label: `Start ${PRODUCT}`, onSelect: () => navigate(props.href) },
                ...(props.canDelete ? [{ label: "Delete", danger: true, onSelect: () => setConfirm(true) }] : []),
              ]}
            />
          </div>
        </>
      )}
      <ConfirmDialog
        open={confirm}
        title="Are you sure?"
        description="This will permanently delete this message. This action cannot be undone."
        busy={busy}
        onConfirm={remove}
        onCancel={() => setConfirm(false)}
      />
    </li>
  );
}
