import { useState } from "react";
import { Link, useLocation, useParams } from "wouter";
import useSWR from "swr";
import { useUser } from "../lib/auth";
import { Button } from "../ui/Button";
import { Spinner } from "../ui/Spinner";
import { toast, toastError } from "../ui/Toast";
import { PublicShell } from "../pages/PublicShell";
import { acceptInvite, type InviteInfo } from "./invites";
import "./sharing.css";
import { usePageTitle } from "../shell/usePageTitle";

/** /invite/{code}: who invited you; sign in first when needed, then accept. */
export function InvitePage() {
  const { code = "" } = useParams<{ code: string }>();
  const [, navigate] = useLocation();
  const { user, isLoading: userLoading } = useUser();
  const info = useSWR<InviteInfo>(code ? `/api/invites/${encodeURIComponent(code)}` : null);
  usePageTitle(info.error ? "Invite not available" : info.data ? `${info.data.inviter} invited you` : undefined);
  const [busy, setBusy] = useState(false);
  const back = `/invite/${encodeURIComponent(code)}`;

  const accept = async () => {
    setBusy(true);
    try {
      await acceptInvite(code);
      toast({ title: "Invite accepted successfully" });
      navigate("/?view=shared");
    } catch (e) {
      toastError(e, "Failed to accept invite");
    } finally {
      setBusy(false);
    }
  };

  let body;
  if (info.error) {
    body = (
      <>
        <h1>Invite not available</h1>
        <p>{info.error.message}</p>
        <Link href="/" className="btn btn-primary btn-md">Return Home</Link>
      </>
    );
  } else if (!info.data || userLoading) {
    body = <Spinner label="Loading invite" />;
  } else {
    const { inviter, status } = info.data;
    body = (
      <>
        <h1>{inviter} invited you</h1>
        <p>Accept to see the topics {inviter} shares with you, and add titles and messages to them.</p>
        {status === "used" && <p role="alert">This invite has already been used. Ask {inviter} for a new invite link.</p>}
        {status === "expired" && <p role="alert">This invite has expired. Ask {inviter} for a new invite link.</p>}
        {status === "valid" && !user && (
          <Link href={`/auth?next=${encodeURIComponent(back)}`} className="btn btn-primary btn-md">Sign in to accept</Link>
        )}
        {status === "valid" && user && user.username === inviter && (
          <p>This is your own invite. Send the link to someone else.</p>
        )}
        {status === "valid" && user && user.username !== inviter && (
          <Button onClick={accept} busy={busy}>Accept Invite</Button>
        )}
      </>
    );
  }

  return (
    <PublicShell>
      <div className="card narrow invite-card stack">{body}</div>
    </PublicShell>
  );
}
