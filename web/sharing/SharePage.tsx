import { useState, type FormEvent } from "react";
import { Link, useParams } from "wouter";
import useSWR, { mutate } from "swr";
import { useUser } from "../lib/auth";
import { Button } from "../ui/Button";
import { Field, Select } from "../ui/Field";
import { Spinner } from "../ui/Spinner";
import { toast, toastError } from "../ui/Toast";
import { PublicShell } from "../pages/PublicShell";
import { TopicList } from "../topics/TopicList";
import type { SortKey } from "../topics/data";
import { acceptInvite, codeFrom } from "./invites";
import "../topics/topics.css";
import "./sharing.css";
import { usePageTitle } from "../shell/usePageTitle";
import type { SharePayload } from "../../src/topics/schema";

/** /share/{username}: that user's topics the viewer may see, in shared mode. */
export function SharePage() {
  const { username = "" } = useParams<{ username: string }>();
  const { user, isLoading } = useUser();
  const key = user && username ? `/api/share/${encodeURIComponent(username)}` : null;
  const share = useSWR<SharePayload>(key);
  usePageTitle(`Shared Topics from ${username}`);
  const [sort, setSort] = useState<SortKey>("custom");
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);

  const accept = async (e: FormEvent) => {
    e.preventDefault();
    const c = codeFrom(code);
    if (!c) return;
    setBusy(true);
    try {
      await acceptInvite(c);
      toast({ title: "Invite accepted", description: "You can now see shared topics from this user" });
      setCode("");
      if (key) await mutate(key);
    } catch (err) {
      toastError(err, "Failed to accept invite");
    } finally {
      setBusy(false);
    }
  };

  let body;
  if (isLoading || (user && !share.data && !share.error)) body = <div className="empty"><Spinner label="Loading shared topics" /></div>;
  else if (!user)
    body = (
      <div className="card stack">
        <p>Sign in to see the topics {username} shares.</p>
        <Link href={`/auth?next=${encodeURIComponent(`/share/${username}`)}`} className="btn btn-primary btn-md">Sign in</Link>
      </div>
    );
  else if (share.error)
    body = (
      <div className="card narrow stack" role="alert">
        <h2>Error Loading Share Page</h2>
        <p>{share.error.message}</p>
        <Link href="/" className="btn btn-primary btn-md">Return Home</Link>
      </div>
    );
  else {
    const d = share.data!;
    body = (
      <section className="card topics-card stack" aria-label="Shared topics">
        <div className="topics-toolbar">
          <Select
            label="Sort"
            value={sort}
            onChange={(e) => setSort(e.target.value as SortKey)}
            options={[
              { value: "custom", label: "Custom Order" },
              { value: "newest", label: "Newest" },
              { value: "oldest", label: "Oldest" },
              { value: "most-clicked", label: "Most Clicked" },
            ]}
          />
        </div>
        {!d.isOwner && !d.isMember && (
          <form className="accept-inline" onSubmit={accept}>
            <Field label="Invite code" placeholder={`Paste an invite from ${d.username}`} value={code} onChange={(e) => setCode(e.target.value)} disabled={busy} />
            <Button type="submit" disabled={!code.trim()} busy={busy}>Accept Invite</Button>
          </form>
        )}
        {!d.isOwner && !d.isMember && <p className="hint">Without an invite you see only {d.username}'s public topics.</p>}
        <TopicList topics={d.topics} sort={sort} shared />
      </section>
    );
  }

  return (
    <PublicShell>
      <div className="stack share-page">
        <h1>Shared Topics from {username}</h1>
        {body}
      </div>
    </PublicShell>
  );
}
