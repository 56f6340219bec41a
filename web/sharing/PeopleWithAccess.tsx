import { useRef, useState } from "react";
import useSWR, { mutate } from "swr";
import { api } from "../lib/api";
import { Button } from "../ui/Button";
import { Spinner } from "../ui/Spinner";
import { toast, toastError } from "../ui/Toast";
import { SHARED_TOPICS_KEY, SHARING_USERS_KEY, type SharingUser } from "../topics/data";
import type { SharingMember } from "../../src/invites/schema";

export const SHARING_MEMBERS_KEY = "/api/sharing-members";

type Person = { id: number; username: string };

/**
 * Issue 25: sharing can be undone. The owner's side lists who accepted their invites (Remove);
 * the member's side lists whose topics they see (Leave). Each ends one share at once; coming
 * back takes a new invite, so nothing is lost that an owner cannot hand out again.
 */
export function PeopleWithAccess() {
  const members = useSWR<SharingMember[]>(SHARING_MEMBERS_KEY);
  const owners = useSWR<SharingUser[]>(SHARING_USERS_KEY);
  return (
    <>
      <PeopleList
        id="people-with-access"
        heading="People with access"
        empty="No one yet. Someone who accepts one of your invites sees your personal and public topics (never private ones)."
        people={members.data}
        error={members.error}
        action="Remove"
        actionLabel={(p) => `Remove ${p.username}'s access`}
        run={async (p) => {
          await api(`${SHARING_MEMBERS_KEY}/${p.id}`, { method: "DELETE" });
          toast({ title: "Access removed", description: `${p.username} no longer sees your shared topics.` });
        }}
        failure="Failed to remove access"
      />
      <PeopleList
        id="shared-with-you"
        heading="Shared with you"
        empty="No one shares topics with you yet. Paste an invite above to see someone's topics."
        people={owners.data}
        error={owners.error}
        action="Leave"
        actionLabel={(p) => `Leave ${p.username}'s shared topics`}
        run={async (p) => {
          await api(`${SHARING_USERS_KEY}/${p.id}`, { method: "DELETE" });
          toast({ title: "Left shared topics", description: `You no longer see ${p.username}'s shared topics.` });
        }}
        failure="Failed to leave shared topics"
      />
    </>
  );
}

function PeopleList(props: {
  id: string;
  heading: string;
  empty: string;
  people: Person[] | undefined;
  error: unknown;
  action: string;
  actionLabel: (p: Person) => string;
  run: (p: Person) => Promise<void>;
  failure: string;
}) {
  const { id, heading, people, error } = props;
  const [busy, setBusy] = useState<number | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const list = useRef<HTMLUListElement>(null);

  const act = async (p: Person, index: number) => {
    setBusy(p.id);
    try {
      await props.run(p);
      await Promise.all([mutate(SHARING_MEMBERS_KEY), mutate(SHARING_USERS_KEY), mutate(SHARED_TOPICS_KEY)]);
      // The row is gone: focus goes to the row that took its place, else the list's heading,
      // never to the page body (docs/decisions.md).
      requestAnimationFrame(() => {
        const buttons = list.current?.querySelectorAll<HTMLButtonElement>("button");
        const next = buttons?.[Math.min(index, (buttons?.length ?? 1) - 1)];
        (next ?? headingRef.current)?.focus();
      });
    } catch (e) {
      toastError(e, props.failure);
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="people stack" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} ref={headingRef} tabIndex={-1}>
        {heading}
        {people && people.length > 0 && <span className="muted"> ({people.length})</span>}
      </h3>
      {error ? (
        <p className="field-error">{error instanceof Error ? error.message : "Could not load the list."}</p>
      ) : !people ? (
        <Spinner size={18} label={`Loading ${heading.toLowerCase()}`} />
      ) : people.length === 0 ? (
        <p className="muted">{props.empty}</p>
      ) : (
        <ul className="people-list" ref={list}>
          {people.map((p, i) => (
            <li key={p.id}>
              <span className="people-name">{p.username}</span>
              <Button variant="secondary" size="sm" busy={busy === p.id} aria-label={props.actionLabel(p)} onClick={() => act(p, i)}>
                {props.action}
              </Button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
