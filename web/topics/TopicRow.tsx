import { useEffect, useRef, useState, type CSSProperties, type FormEvent, type KeyboardEvent } from "react";
import { useLocation } from "wouter";
import { mutate } from "swr";
import { Button } from "../ui/Button";
import { ConfirmDialog } from "../ui/Dialog";
import { Field, Select } from "../ui/Field";
import { Menu } from "../ui/Menu";
import { toast, toastError } from "../ui/Toast";
import { PhoneNumber } from "./PhoneNumber";
import { TOPIC_NAME_ID } from "./AddTopicForm";
import { copyText, HIGHLIGHT_MS, topicLabel, topicLink, topicPath, topicsApi, TOPICS_KEY, type Topic } from "./data";

const ACCESS = [
  { value: "personal", label: "Personal (you and people you invite)" },
  { value: "public", label: "Public (any signed-in user)" },
  { value: "private", label: "Private (only you)" },
];

/** What drag reordering adds to a row (from @dnd-kit, in SortableTopics, only in Custom Order). */
export type RowSortable = {
  setNodeRef: (node: HTMLElement | null) => void;
  setActivatorNodeRef: (node: HTMLElement | null) => void;
  handleProps: object;
  style: CSSProperties;
  isDragging: boolean;
};
const STILL: RowSortable = { setNodeRef: () => {}, setActivatorNodeRef: () => {}, handleProps: {}, style: {}, isDragging: false };

type Props = { topic: Topic; shared: boolean; draggable: boolean; sortable?: RowSortable };

export function TopicRow({ topic, shared, draggable, sortable = STILL }: Props) {
  const [, navigate] = useLocation();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(topicLabel(topic));
  const [access, setAccess] = useState(topic.accessType);
  const [saving, setSaving] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const label = topicLabel(topic);
  const [fresh, setFresh] = useState(() => Date.now() - Date.parse(topic.createdAt) < HIGHLIGHT_MS);

  useEffect(() => {
    if (!fresh) return;
    const left = HIGHLIGHT_MS - (Date.now() - Date.parse(topic.createdAt));
    const timer = setTimeout(() => setFresh(false), Math.max(0, left));
    return () => clearTimeout(timer);
  }, [fresh, topic.createdAt]);

  // After Save or Cancel, focus goes back to what opened the editor (Edit on desktop, the ⋯
  // menu on phones), so a keyboard user keeps their place instead of landing on <body>.
  const rowRef = useRef<HTMLLIElement | null>(null);
  const refocus = useRef(false);
  useEffect(() => {
    if (editing || !refocus.current) return;
    refocus.current = false;
    const candidates = rowRef.current?.querySelectorAll<HTMLElement>("[data-edit-opener], .mobile-only button") ?? [];
    [...candidates].find((el) => el.offsetParent !== null)?.focus();
  }, [editing]);

  const startEdit = () => {
    setName(label);
    setAccess(topic.accessType);
    setEditing(true);
  };
  const cancel = () => {
    // Spec §4: Cancel restores the original name.
    setName(label);
    setAccess(topic.accessType);
    refocus.current = true;
    setEditing(false);
  };
  const cancelOnEscape = (e: KeyboardEvent) => {
    if (e.key !== "Escape" || saving) return;
    e.preventDefault();
    cancel();
  };
  const save = async (e: FormEvent) => {
    e.preventDefault();
    // Spec §5: no length check on the dashboard for a rename; the server's message is shown.
    setSaving(true);
    try {
      await topicsApi.update(topic.id, { name, accessType: access });
      toast({ title: "Topic updated successfully" });
      refocus.current = true;
      setEditing(false);
      await mutate(TOPICS_KEY);
    } catch (err) {
      toastError(err, "Failed to update topic");
    } finally {
      setSaving(false);
    }
  };
  const copy = async () => {
    if (await copyText(topicLink(topic))) toast({ title: "Topic link copied to clipboard" });
    else toast({ title: "Error", description: "Failed to copy to clipboard. Please try again.", variant: "destructive" });
  };
  const remove = async () => {
    setDeleting(true);
    // The row and its buttons go away: focus moves to the next row's Delete (or the row
    // before at the end; the ⋯ menu on phones), else to the add form's name field.
    const row = rowRef.current;
    const neighbour = (row?.nextElementSibling ?? row?.previousElementSibling) as HTMLElement | null;
    try {
      await topicsApi.remove(topic.id);
      toast({ title: "Topic deleted successfully" });
      setConfirming(false);
      await mutate(TOPICS_KEY);
      requestAnimationFrame(() => {
        const candidates = neighbour?.isConnected ? neighbour.querySelectorAll<HTMLElement>("[data-delete-opener], .mobile-only button") : [];
        const target = [...candidates].find((el) => el.offsetParent !== null) ?? document.getElementById(TOPIC_NAME_ID);
        target?.focus();
      });
    } catch (err) {
      toastError(err, "Failed to delete topic");
    } finally {
      setDeleting(false);
    }
  };
  const start = () => navigate(topicPath(topic));
  const vcard = `/api/topics/${topic.id}/contact.vcf`;
  const clicks = topic.clickCount ?? 0;

  return (
    <li
      ref={(node) => {
        sortable.setNodeRef(node);
        rowRef.current = node;
      }}
      style={sortable.style}
      className={`topic-row ${fresh ? "topic-new" : ""} ${sortable.isDragging ? "dragging" : ""}`}
      aria-label={label}
    >
      {draggable && (
        <button
          type="button"
          ref={sortable.setActivatorNodeRef}
          className="drag-handle"
          {...sortable.handleProps}
          aria-label={`Reorder ${label}`}
        >
          <span aria-hidden="true">⠿</span>
        </button>
      )}
      {editing ? (
        <form className="topic-edit" onSubmit={save} onKeyDown={cancelOnEscape} noValidate>
          <Field label="Topic name" value={name} onChange={(e) => setName(e.target.value)} disabled={saving} autoFocus />
          <Select
            label="Access"
            value={access}
            onChange={(e) => setAccess(e.target.value as Topic["accessType"])}
            options={ACCESS}
            disabled={saving}
          />
          <div className="row">
            <Button type="submit" size="sm" busy={saving}>Save</Button>
            <Button variant="secondary" size="sm" onClick={cancel} disabled={saving}>Cancel</Button>
          </div>
        </form>
      ) : (
        <>
          <div className="topic-main">
            <span className="topic-name" dir="auto">{label}</span>
            <span className="topic-meta">
              {shared && <span className="badge">from {topic.username}</span>}
              {!shared && topic.accessType !== "personal" && <span className="badge">{topic.accessType === "public" ? "Public" : "Private"}</span>}
              <span className="muted">{clicks} {clicks === 1 ? "click" : "clicks"}</span>
              {topic.phoneNumber && <PhoneNumber number={topic.phoneNumber} topic={label} />}
            </span>
          </div>
          <div className="topic-actions desktop-only">
            <Button size="sm" onClick={start} aria-label={`Start Message: ${label}`}>Start Message</Button>
            {!shared && <Button size="sm" variant="secondary" onClick={startEdit} data-edit-opener aria-label={`Edit ${label}`}>Edit</Button>}
            <Button size="sm" variant="secondary" onClick={copy} aria-label={`Copy link to ${label}`}>Copy</Button>
            {!shared && (
              <a className="btn btn-ghost btn-sm" href={vcard} download aria-label={`Download contact card for ${label}`} title="Contact card (vCard)">
                Contact card
              </a>
            )}
            {!shared && (
              <Button size="sm" variant="ghost" className="danger-text" onClick={() => setConfirming(true)} data-delete-opener aria-label={`Delete ${label}`}>
                Delete
              </Button>
            )}
          </div>
          <div className="mobile-only">
            <Menu
              label={`Actions for ${label}`}
              button={<span aria-hidden="true">⋯</span>}
              items={[
                { label: "Copy", onSelect: copy },
                { label: "Start Message", onSelect: start },
                ...(shared
                  ? []
                  : [
                      { label: "Edit", onSelect: startEdit },
                      { label: "Download contact card", onSelect: () => location.assign(vcard) },
                      // Last, away from the everyday actions (issue 25).
                      { label: "Delete", onSelect: () => setConfirming(true), danger: true },
                    ]),
              ]}
            />
          </div>
        </>
      )}
      <ConfirmDialog
        open={confirming}
        title="Are you sure?"
        description={`This will permanently delete the topic "${label}" with its titles and messages. This action cannot be undone.`}
        busy={deleting}
        onConfirm={remove}
        onCancel={() => setConfirming(false)}
      />
    </li>
  );
}
