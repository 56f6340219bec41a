import { useEffect, useId, useRef, useState } from "react";
import { Link, useLocation, useParams } from "wouter";
import { AppFooter, AppHeader } from "../shell/AppHeader";
import { Button } from "../ui/Button";
import { FullPageSpinner } from "../ui/Spinner";
import { toast, toastError } from "../ui/Toast";
import { copyText, formatDate, refetchTitles, seriesOf, titlesApi, useCanonicalSlug, topicLabel, useHost, useInlineEditor, useTitles, useTopic, type Title, type TopicView } from "./data";
import { LinkedText } from "./LinkedText";
import { useUser } from "../lib/auth";
import { TopicProblem } from "./TopicPage";
import "./titles.css";
import { usePageTitle } from "../shell/usePageTitle";

const PRODUCT = "Messages";

/** /:username/:topicSlug/:titleSlug/:version: one message version. */
export function MessageDetailPage() {
  const { username, topicSlug, titleSlug: slug, version } = useParams<{ username: string; topicSlug: string; titleSlug: string; version: string }>();
  const topic = useTopic(username, topicSlug);
  const titles = useTitles(username, topicSlug);
  const series = seriesOf(titles.data, slug);
  const found = series.find((x) => String(x.version) === version);
  useCanonicalSlug(slug, series[0]?.slug);
  usePageTitle(topic.error ? "Topic Not Found" : found ? `${found.name}: Message ${found.version}` : titles.data || titles.error ? "Message Not Found" : undefined);

  // Spec §2: 'Loading...' until the entry and the topic are loaded.
  if (topic.isLoading || (!titles.data && !titles.error)) return <FullPageSpinner text="Loading..." />;
  if (topic.error || !topic.data) return <TopicProblem error={topic.error} />;
  const t = topic.data;
  const listHref = `/${t.username}/${t.linkSlug}/${series[0]?.slug ?? slug}`;
  const entry = found;
  if (!entry) {
    return (
      <div className="page">
        <AppHeader />
        <main id="main" tabIndex={-1} className="container titles-page">
          <div className="card stack narrow">
            <h1>Message Not Found</h1>
            <p>{titles.error instanceof Error ? titles.error.message : "This message does not exist or was deleted."}</p>
            <Link href={listHref} className="btn btn-primary btn-md">Back to messages</Link>
          </div>
        </main>
        <AppFooter />
      </div>
    );
  }
  // Keyed by id: moving to another version starts from that version's own stored state.
  return <MessageDetail key={entry.id} topic={t} entry={entry} username={username} topicSlug={topicSlug} listHref={listHref} />;
}

function MessageDetail({ topic, entry, username, topicSlug, listHref }: { topic: TopicView; entry: Title; username: string; topicSlug: string; listHref: string }) {
  const [, navigate] = useLocation();
  const host = useHost();
  const api = titlesApi(username, topicSlug);
  const { user } = useUser();
  // A member edits only the versions they added; the owner edits any (src/titles/store.ts).
  const canWrite = topic.role === "owner" || (topic.role === "member" && entry.createdBy === user?.id);
  const link = `${host}${listHref}/${entry.version}`;
  const ids = { name: useId(), message: useId(), notes: useId() };

  const [displayName, setDisplayName] = useState(entry.displayName ?? entry.name);
  const [message, setMessage] = useState(entry.keyPhrase ?? "");
  // Spec §4: editable while not yet saved or when the user chose to edit; typing marks it edited.
  const [editingMessage, setEditingMessage] = useState(!entry.keyPhrase);
  const [edited, setEdited] = useState(false);
  const [notes, setNotes] = useState(entry.notes);
  const [editingNotes, setEditingNotes] = useState(false);
  const [busy, setBusy] = useState<"message" | "notes" | "name" | null>(null);
  // Keyboard: Edit puts the cursor in the notes; Escape cancels; focus then returns to Edit.
  const notesRef = useRef<HTMLTextAreaElement>(null);
  const cancelNotes = () => {
    setNotes(entry.notes);
    setEditingNotes(false);
  };
  const notesEditor = useInlineEditor(editingNotes, cancelNotes, busy === "notes", notesRef);
  useEffect(() => {
    if (editingNotes) notesRef.current?.focus();
  }, [editingNotes]);

  useEffect(() => setDisplayName(entry.displayName ?? entry.name), [entry.displayName, entry.name]);
  // A refetch (after any save) brings the stored values back unless the user is mid-edit.
  useEffect(() => {
    if (!edited) setMessage(entry.keyPhrase ?? "");
  }, [entry.keyPhrase, edited]);
  useEffect(() => {
    if (!editingNotes) setNotes(entry.notes);
  }, [entry.notes, editingNotes]);

  const refetch = () => refetchTitles(username, topicSlug);
  const storedName = entry.displayName ?? entry.name;

  /** Stores the message (and the display name), then copies the message (spec §4). */
  async function saveMessage() {
    setBusy("message");
    try {
      await api.update(entry.id, { displayName: displayName.trim() || null, keyPhrase: message });
    } catch (e) {
      toastError(e, "Failed to save message");
      setBusy(null);
      return;
    }
    setEdited(false);
    setEditingMessage(!message);
    await refetch();
    setBusy(null);
    if (await copyText(message)) toast({ title: `Message saved and copied to clipboard. Go Paste to ${PRODUCT}!` });
    else toastError(null, "Failed to copy to clipboard. Please try again.");
  }

  async function onNameBlur() {
    if (!canWrite) return;
    // Leaving the title field saves an edited message too (spec §4 'Message detail').
    if (edited) return saveMessage();
    if (displayName.trim() === storedName || (!displayName.trim() && !entry.displayName)) return;
    setBusy("name");
    try {
      await api.update(entry.id, { displayName: displayName.trim() || null });
      await refetch();
      toast({ title: "Changes saved successfully" });
    } catch (e) {
      toastError(e, "Failed to update message");
    } finally {
      setBusy(null);
    }
  }

  async function saveNotes() {
    setBusy("notes");
    try {
      await api.update(entry.id, { notes });
      setEditingNotes(false);
      await refetch();
      toast({ title: "Notes saved successfully" });
    } catch (e) {
      toastError(e, "Failed to save notes");
    } finally {
      setBusy(null);
    }
  }

  async function copyLink() {
    if (await copyText(link)) toast({ title: "Copied to clipboard" });
    else toastError(null, "Failed to copy to clipboard");
  }

  async function copyAll() {
    const block = [link, `Topic: ${topicLabel(topic)}`, `Title: ${entry.name}`, `Message: ${entry.keyPhrase ?? message}`].join("\n");
    if (await copyText(block)) toast({ title: "All content copied to clipboard" });
    else toastError(null, "Failed to copy content");
  }

  return (
    <div className="page">
      <AppHeader />
      <main id="main" tabIndex={-1} className="container titles-page stack">
        <div className="titles-head">
          <Link href={listHref} className="btn btn-ghost btn-icon" aria-label={`Back to ${entry.name}`}>←</Link>
          <nav aria-label="Breadcrumb" className="breadcrumb">
            <ol>
              <li>
                <Link href={`/${topic.username}/${topic.linkSlug}`}>{topicLabel(topic)}</Link>
              </li>
              <li>
                <Link href={listHref}>{entry.name}</Link>
              </li>
              <li aria-current="page">Message {entry.version}</li>
            </ol>
          </nav>
        </div>

        <h1 className="sr-only">
          {entry.name}: Message {entry.version}
        </h1>
        <div className="detail-name">
          <label htmlFor={ids.name} className="detail-name-label">Display name</label>
          <input
            id={ids.name}
            className="display-name-input"
            dir="auto"
            value={displayName}
            readOnly={!canWrite}
            onChange={(e) => setDisplayName(e.target.value)}
            onBlur={onNameBlur}
            onKeyDown={(e) => e.key === "Enter" && e.currentTarget.blur()}
            maxLength={100}
            aria-describedby={`${ids.name}-meta`}
          />
          <p id={`${ids.name}-meta`} className="muted message-meta">
            Message {entry.version} · <time dateTime={entry.createdAt}>{formatDate(entry.createdAt)}</time>
          </p>
        </div>

        <section className="card stack" aria-label="Message">
          <div className="detail-link">
            <code className="link-text">{link}</code>
            <div className="row">
              <Button variant="secondary" size="sm" onClick={copyLink}>Copy Link</Button>
              <Button variant="secondary" size="sm" onClick={copyAll}>Copy All</Button>
            </div>
          </div>

          <div className="field">
            <label htmlFor={ids.message} id={`${ids.message}-label`}>Message</label>
            {editingMessage && canWrite ? (
              <>
                <textarea
                  id={ids.message}
                  className="message-input"
                  value={message}
                  placeholder="Enter message to find it later in search across platforms..."
                  onChange={(e) => {
                    setMessage(e.target.value);
                    setEdited(true);
                  }}
                />
                <div className="row">
                  <Button onClick={saveMessage} busy={busy === "message"} disabled={!message.trim()}>Save Message</Button>
                  {entry.keyPhrase && (
                    <Button
                      variant="secondary"
                      onClick={() => {
                        setMessage(entry.keyPhrase ?? "");
                        setEdited(false);
                        setEditingMessage(false);
                      }}
                    >
                      Cancel
                    </Button>
                  )}
                </div>
              </>
            ) : (
              <>
                {/* Read-only once saved; a click on the text (not on a link in it) starts editing. */}
                <div
                  id={ids.message}
                  className="message-readonly"
                  role="textbox"
                  aria-labelledby={`${ids.message}-label`}
                  aria-readonly="true"
                  aria-multiline="true"
                  onClick={() => canWrite && setEditingMessage(true)}
                >
                  {message ? <LinkedText text={message} /> : <span className="muted">No message yet.</span>}
                </div>
                {canWrite && (
                  <div className="row">
                    <Button variant="secondary" size="sm" onClick={() => setEditingMessage(true)}>Edit Message</Button>
                  </div>
                )}
              </>
            )}
          </div>

          <div className="field">
            <label htmlFor={ids.notes}>Notes</label>
            <textarea
              id={ids.notes}
              className="notes-input"
              value={notes}
              ref={notesRef}
              readOnly={!editingNotes}
              placeholder="Add notes for this version..."
              onChange={(e) => setNotes(e.target.value)}
              onKeyDown={editingNotes ? notesEditor.onKeyDown : undefined}
            />
            {canWrite && (
              <div className="row">
                {!editingNotes ? (
                  <Button ref={notesEditor.opener} variant="secondary" size="sm" onClick={() => setEditingNotes(true)} aria-label="Edit notes">Edit</Button>
                ) : (
                  <>
                    <Button size="sm" onClick={saveNotes} busy={busy === "notes"}>Save Notes</Button>
                    <Button variant="secondary" size="sm" onClick={cancelNotes}>
                      Cancel
                    </Button>
                  </>
                )}
              </div>
            )}
          </div>
        </section>

        <div className="row">
          <Button onClick={() => navigate(listHref)}>New Message</Button>
        </div>
      </main>
      <AppFooter />
    </div>
  );
}
