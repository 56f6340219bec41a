import { useState, type FormEvent } from "react";
import { Button } from "../ui/Button";
import { Dialog } from "../ui/Dialog";
import { Field } from "../ui/Field";
import { toast, toastError } from "../ui/Toast";
import { copyText } from "../topics/data";
import { acceptInvite, codeFrom, createInvite, inviteLink } from "./invites";
import { PeopleWithAccess } from "./PeopleWithAccess";

/** Spec §2: 'Share Topics' — Create Invite Link, an invite-code input and Accept Invite. */
export function ShareDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [link, setLink] = useState<string>();
  const [creating, setCreating] = useState(false);
  const [code, setCode] = useState("");
  const [accepting, setAccepting] = useState(false);

  const create = async () => {
    setCreating(true);
    try {
      const invite = await createInvite();
      const url = inviteLink(invite.code);
      setLink(url);
      await copyText(url);
      toast({ title: "Invite link created", description: "Share this link with someone to start sharing topics" });
    } catch (e) {
      toastError(e, "Failed to create invite");
    } finally {
      setCreating(false);
    }
  };

  const copy = async () => {
    if (link && (await copyText(link))) toast({ title: "Invite link copied to clipboard" });
    else toast({ title: "Error", description: "Failed to copy to clipboard", variant: "destructive" });
  };

  const accept = async (e: FormEvent) => {
    e.preventDefault();
    // Spec §5: an empty code does nothing.
    const c = codeFrom(code);
    if (!c) return;
    setAccepting(true);
    try {
      await acceptInvite(c);
      toast({ title: "Invite accepted", description: "You can now see shared topics from this user" });
      setCode("");
      onClose();
    } catch (err) {
      toastError(err, "Failed to accept invite");
    } finally {
      setAccepting(false);
    }
  };

  return (
    <Dialog open={open} onClose={onClose} title="Share Topics" description="Invite someone to see your topics, accept an invite you were sent, and see who has access.">
      <div className="stack">
        <div className="stack">
          <Button onClick={create} busy={creating}>Create Invite Link</Button>
          {link && (
            <div className="invite-link">
              <Field label="Invite link" value={link} readOnly onFocus={(e) => e.currentTarget.select()} hint="Single use; expires in 7 days." />
              <Button variant="secondary" size="sm" onClick={copy}>Copy invite link</Button>
            </div>
          )}
        </div>
        <form className="stack" onSubmit={accept}>
          <Field label="Invite code" placeholder="Paste an invite code or link" value={code} onChange={(e) => setCode(e.target.value)} disabled={accepting} />
          <Button type="submit" disabled={!code.trim()} busy={accepting}>Accept Invite</Button>
        </form>
        <PeopleWithAccess />
      </div>
    </Dialog>
  );
}
