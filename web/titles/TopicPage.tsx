import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from "react";
import { Link, useParams } from "wouter";
import * as v from "valibot";
import { AppFooter, AppHeader } from "../shell/AppHeader";
import { useUser } from "../lib/auth";
import { ApiError } from "../lib/api";
import { Button } from "../ui/Button";
import { ConfirmDialog } from "../ui/Dialog";
import { Field, Select, TextArea } from "../ui/Field";
import { ClampedText } from "../ui/ClampedText";
import { Spinner } from "../ui/Spinner";
import { toast, toastError } from "../ui/Toast";
import { act } from "../lib/act";
import { focusAfterRemoval, neighbourOf } from "../lib/focus";
import { TitleNameInput } from "../../src/titles/schema";
import {
  arrange,
  copyText,
  refetchTitles,
  titleSlug,
  titlesApi,
  topicLabel,
  useHost,
  useTitles,
  useTopic,
  useTopicOpen,
  useInlineEditor,
  type SortKey,
  type Title,
  type TopicView,
  type ViewKey,
} from "./data";
import { PhoneNumber } from "../topics/PhoneNumber";
import "./titles.css";
import { usePageTitle } from "../shell/usePageTitle";
import { useSettled } from "../lib/useSettled";
import { SEARCH_MAX } from "../../src/shared/paging";

const PRODUCT = "Messages";
export const HIGHLIGHT_MS = 2000;
/** Typing settles this long before the search goes to the server (as on the Link Tracker). */
const SEARCH_DELAY_MS = 250;

const SORTS = [
  { value: "newest", label: "Newest" },
  { value: "oldest", label: "Oldest" },
  { value: "custom", label: "Custom" },
];
const VIEWS = [
  { value: "personal", label: "Personal" },
  { value: "shared", label: "Shared" },
];

/** The full-page states of spec §2 (topic page), each with Back to Home. */
export function TopicProblem({ error }: { error?: unknown }) {
  const missing = !error || (error instanceof ApiError && error.status === 404);
  return (
    <main id="main" tabIndex={-1} className="center-page">
      <div className="card narrow stack">
        {missing ? (
          <>
            <h1>Topic Not Found</h1>
            <p>The requested topic could not be found.</p>
          </>
        ) : (
          <>
            <h1>Error Loading Topic</h1>
            <p>{error instanceof Error && error.message ? error.message : "Could not load the topic. Please try again."}</p>
          </>
        )}
        <Link href="/" className="btn btn-primary btn-md">Back to Home</Link>
      </div>
    </main>
  );
}

/** /topic/:username/:topicSlug and /:username/:topicSlug: a topic's titles. */
export function TopicPage() {
  const { username, topicSlug } = useParams<{ username?: string; topicSlug?: string }>();
  const topic = useTopic(username, topicSlug);
  // The search box's text, and what the server is asked for once typing pauses (issue 21: the
  // server searches the titles list; this page still reads every page of what matches).
  const [search, setSearch] = useState("");
  const query = useSettled(search.trim(), SEARCH_DELAY_MS);
  const titles = useTitles(username, topicSlug, query);
  useTopicOpen(username, topicSlug);
  usePageTitle(topic.error ? "Topic Not Found" : topic.data ? topicLabel(topic.data) : undefined);

  if (!username || !topicSlug) return <TopicProblem error={new Error("Could not load the topic. Please try again.")} />;
  if (topic.isLoading) {
    return (
      <div className="center-page">
        <Spinner size={36} label="Loading topic" />
      </div>
    );
  }
  if (topic.error) return <TopicProblem error={topic.error} />;
  if (!topic.data) return <TopicProblem />;
  return (
    <TopicLoaded
      topic={topic.data}
      username={username}
      topicSlug={topicSlug}
      titles={titles.data}
      titlesError={titles.error}
      search={search}
      onSearch={setSearch}
      query={query}
    />
  );
}

function TopicLoaded({
  topic,
  username,
  topicSlug,
  titles,
  titlesError,
  search,
  onSearch,
  query,
}: {
  topic: TopicView;
  username: string;
  topicSlug: string;
  titles: Title[] | undefined;
  titlesError: unknown;
  /** The search box's text; `query`, what the shown list was searched for. */
  search: string;
  onSearch: (text: string) => void;
  query: string;
}) {
  const { user } = useUser();
  const host = useHost();
  const [sort, setSort] = useState<SortKey>("newest");
  const [view, setView] = useState<ViewKey>("personal");
  const [editing, setEditing] = useState<number | null>(null);
  const [highlight, setHighlight] = useState<number | null>(null);
  const canWrite = topic.role !== "viewer";
  // A member changes only what they added (src/titles/store.ts); the row's Edit renames the
  // whole series, so every version of it must be theirs. The owner changes anything.
  const mayEditSeries = (name: string) =>
    topic.role === "owner" || (canWrite && (titles ?? []).every((x) => x.name !== name || x.createdBy === user?.id));
  const api = titlesApi(username, topicSlug);
  // Links are built from the topic's current slug, even when the page was opened by an old one.
  const base = `/${topic.username}/${topic.linkSlug}`;

  useEffect(() => {
    if (highlight === null) return;
    const t = setTimeout(() => setHighlight(null), HIGHLIGHT_MS);
    return () => clearTimeout(t);
  }, [highlight]);

  // Spec §3: the list removes duplicates by name, keeping the first (in the chosen order).
  const rows = useMemo(() => {
    const seen = new Set<string>();
    return arrange(titles ?? [], sort, view, user?.id).filter((t) => (seen.has(t.name) ? false : (seen.add(t.name), true)));
  }, [titles, sort, view, user?.id]);

  return (
    <div className="page">
      <AppHeader />
      <main id="main" tabIndex={-1} className="container titles-page stack">
        <div className="titles-head">
          <Link href="/" className="btn btn-ghost btn-icon" aria-label="Back to Home">←</Link>
          <h1 dir="auto">
            {topic.emoji && <span aria-hidden="true">{topic.emoji} </span>}
            {topic.name}
          </h1>
        </div>
        {topic.phoneNumber && (
          <p className="topic-phone">
            <PhoneNumber number={topic.phoneNumber} topic={topicLabel(topic)} />
          </p>
        )}

        {canWrite ? (
          <AddTitleForm
            onAdd={async (body) => {
              const made = await api.create(body);
              await refetchTitles(username, topicSlug);
              setHighlight(made.id);
            }}
          />
        ) : (
          <p className="muted">You can read this topic; only its owner and invited people can add titles.</p>
        )}

        <section className="stack" aria-labelledby="titles-heading">
          <div className="titles-toolbar">
            <h2 id="titles-heading">Titles</h2>
            <span className="spacer" />
            <Select label="View" options={VIEWS} value={view} onChange={(e) => setView(e.target.value as ViewKey)} />
            <Select label="Sort" options={SORTS} value={sort} onChange={(e) => setSort(e.target.value as SortKey)} />
          </div>
          <Field
            label="Search titles"
            type="search"
            className="field-inline titles-search"
            placeholder="Search titles..."
            // The server refuses a longer search (400): the box takes no more than it accepts.
            maxLength={SEARCH_MAX}
            value={search}
            onChange={(e) => onSearch(e.target.value)}
            autoComplete="off"
          />
          {titlesError ? (
            <p className="field-error" role="alert">{titlesError instanceof Error ? titlesError.message : "Could not load the titles."}</p>
          ) : !titles ? (
            <Spinner label="Loading titles" />
          ) : rows.length === 0 && query ? (
            // A search that finds nothing is not an empty topic: the spec's empty text stays for that.
            <p className="empty" role="status">No titles match "{query}". Try a different search.</p>
          ) : rows.length === 0 ? (
            // Readers of a public topic have no form to add with (issue 13).
            <p className="empty">{canWrite ? "No titles found. Add your first title above." : "No titles found."}</p>
          ) : (
            <>
            {query && (
              <p className="muted" role="status">
                {rows.length === 1 ? "1 title matches" : `${rows.length.toLocaleString("en")} titles match`} "{query}"
              </p>
            )}
            <ul className="title-list">
              {rows.map((t) => (
                <TitleRow
                  key={t.id}
                  title={t}
                  href={`${base}/${titleSlug(t.name)}`}
                  link={`${host}${base}/${titleSlug(t.name)}`}
                  highlighted={highlight === t.id}
                  editing={editing === t.id}
                  anyEditing={editing !== null}
                  canWrite={mayEditSeries(t.name)}
                  canDelete={topic.role === "owner"}
                  addedBy={t.createdByUsername && t.createdBy !== user?.id ? t.createdByUsername : null}
                  onEdit={() => setEditing(t.id)}
                  onDone={() => setEditing(null)}
                  onSave={async (name, notes) => {
                    await api.update(t.id, { name, notes }, true);
                    await refetchTitles(username, topicSlug);
                  }}
                  onDelete={async () => {
                    await api.remove(t.id, true);
                    await refetchTitles(username, topicSlug);
                  }}
                />
              ))}
            </ul>
            </>
          )}
        </section>
      </main>
      <AppFooter />
    </div>
  );
}

type AddBody = { name: string; originalName: string; notes: string; version: number };

/** Emoji, name and notes; the name is checked with the server's own schema and messages. */
function AddTitleForm({ onAdd }: { onAdd: (body: AddBody) => Promise<void> }) {
  const [emoji, setEmoji] = useState("");
  const [name, setName] = useState("");
  const [notes, setNotes] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const nameId = useId();

  async function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = v.safeParse(TitleNameInput, name);
    if (!parsed.success) {
      setError(parsed.issues[0].message);
      document.getElementById(nameId)?.focus();
      return;
    }
    setError(undefined);
    // Spec §5: emoji and name are joined with a space when an emoji exists.
    const full = emoji.trim() ? `${emoji.trim()} ${parsed.output}` : parsed.output;
    setBusy(true);
    try {
      await onAdd({ name: full, originalName: full, notes, version: 1 });
      toast({ title: "Title created successfully" });
      setEmoji("");
      setName("");
      setNotes("");
    } catch (err) {
      if (err instanceof ApiError && err.fields?.name) setError(err.fields.name);
      toastError(err, "Failed to create title");
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="card stack add-title" onSubmit={submit} noValidate aria-label="Add a title">
      <div className="add-title-fields">
        <Field label="Emoji" className="emoji-field" value={emoji} onChange={(e) => setEmoji(e.target.value)} placeholder="🙂" autoComplete="off" />
        <Field
          id={nameId}
          label="Title name"
          className="name-field"
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            if (error) setError(undefined);
          }}
          placeholder="Title name"
          error={error}
          autoComplete="off"
        />
      </div>
      <TextArea label="Notes" value={notes} onChange={(e) => setNotes(e.target.value)} placeholder="Add notes..." rows={3} className="notes-field" />
      <div className="row">
        <Button type="submit" busy={busy}>Add Title</Button>
      </div>
    </form>
  );
}

function TitleRow(props: {
  title: Title;
  href: string;
  link: string;
  highlighted: boolean;
  editing: boolean;
  anyEditing: boolean;
  canWrite: boolean;
  canDelete: boolean;
  /** Who added it, when not the viewer (a shared topic has titles from several people). */
  addedBy: string | null;
  onEdit: () => void;
  onDone: () => void;
  onSave: (name: string, notes: string) => Promise<void>;
  onDelete: () => Promise<void>;
}) {
  const { title: t } = props;
  const [name, setName] = useState(t.name);
  const [notes, setNotes] = useState(t.notes);
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const editor = useInlineEditor(props.editing, props.onDone, busy);
  const rowRef = useRef<HTMLLIElement>(null);

  // Spec §4: pressing edit loads the row's name and notes into the editor.
  useEffect(() => {
    if (props.editing) {
      setName(t.name);
      setNotes(t.notes);
    }
  }, [props.editing, t.name, t.notes]);

  async function save(e: FormEvent) {
    e.preventDefault();
    if (await act(setBusy, () => props.onSave(name, notes), "Title updated successfully", "Failed to update title")) props.onDone();
  }

  async function remove() {
    const neighbour = neighbourOf(rowRef.current);
    if (await act(setBusy, props.onDelete, "Title deleted successfully", "Failed to delete title")) {
      setConfirm(false);
      // The row is gone: focus goes to the next row's Delete (or first action), else the list's heading.
      focusAfterRemoval(neighbour, "[data-delete-opener], .title-actions a, .title-actions button", () => document.getElementById("titles-heading"));
    }
  }

  async function copy() {
    if (await copyText(props.link)) toast({ title: "Copied to clipboard" });
    else toastError(null, "Failed to copy to clipboard. Please try again.");
  }

  if (props.editing) {
    return (
      <li className="title-row card">
        <form className="stack" onSubmit={save} onKeyDown={editor.onKeyDown} aria-label={`Edit ${t.name}`}>
          <Field label="Title name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />
          <TextArea label="Notes" value={notes} onChange={(e) => setNotes(e.target.value)} placeholder="Add notes..." rows={3} className="notes-field" />
          <div className="row">
            <Button type="submit" busy={busy}>Save</Button>
            <Button variant="secondary" onClick={props.onDone}>Cancel</Button>
          </div>
        </form>
      </li>
    );
  }

  return (
    <li ref={rowRef} className={`title-row card ${props.highlighted ? "is-new" : ""}`}>
      <div className="title-main">
        <h3 className="title-name" dir="auto">
          <Link href={props.href}>{t.name}</Link>
        </h3>
        {props.addedBy && <p className="title-by muted">Added by {props.addedBy}</p>}
        {t.notes && <ClampedText className="title-notes" text={t.notes} />}
      </div>
      {/* Spec §4: while any row is in edit, the row action buttons are hidden. */}
      {!props.anyEditing && (
        <div className="title-actions">
          <Link href={props.href} className="btn btn-primary btn-sm" aria-label={`Start ${PRODUCT}: ${t.name}`}>
            Start {PRODUCT}
          </Link>
          {props.canWrite && (
            <Button ref={editor.opener} variant="secondary" size="sm" onClick={props.onEdit} aria-label={`Edit ${t.name}`}>Edit</Button>
          )}
          <Button variant="secondary" size="sm" onClick={copy} aria-label={`Copy link to ${t.name}`}>Copy</Button>
          {props.canDelete && (
            <Button variant="ghost" size="sm" className="danger-text" onClick={() => setConfirm(true)} data-delete-opener aria-label={`Delete ${t.name}`}>Delete</Button>
          )}
        </div>
      )}
      <ConfirmDialog
        open={confirm}
        title="Are you sure?"
        description="This will permanently delete this title. This action cannot be undone."
        busy={busy}
        onConfirm={remove}
        onCancel={() => setConfirm(false)}
      />
    </li>
  );
}
