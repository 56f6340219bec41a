import { useId, useState } from "react";
import useSWR from "swr";
import { api } from "../lib/api";
import { Dialog } from "../ui/Dialog";
import { Button } from "../ui/Button";
import { Field } from "../ui/Field";
import { toast } from "../ui/Toast";
import { copyLink } from "../links/format";
import type { PublicStatsView } from "../../src/publicstats/schema";

export const publicStatsKey = (linkId: number) => `/api/stats/${linkId}/public`;

/**
 * A link's public stats page (issue 26): publish it at an unguessable address, copy the address,
 * replace it with a new one, or stop publishing. The page shows totals only (README).
 */
export function PublicStatsDialog({ link, onClose }: { link: { id: number; title: string } | null; onClose: () => void }) {
  const key = link ? publicStatsKey(link.id) : null;
  const { data, error, mutate } = useSWR<PublicStatsView>(key, { revalidateOnMount: true });
  const [busy, setBusy] = useState<null | "publish" | "renew" | "revoke">(null);
  const addressId = useId();
  const publishId = useId();

  async function change(kind: "publish" | "renew" | "revoke") {
    if (!key || busy) return;
    setBusy(kind);
    try {
      const next = await api<PublicStatsView>(key, { method: kind === "revoke" ? "DELETE" : "POST" });
      await mutate(next, { revalidate: false });
      toast({ title: kind === "revoke" ? "Stats page turned off" : kind === "renew" ? "New address made; the old one no longer works" : "Stats page published" });
      // Publish and Stop publishing go with the state they change, and focus would fall to the
      // page's body behind the dialog: it moves to what replaced them (New address keeps it).
      if (kind !== "renew") requestAnimationFrame(() => document.getElementById(kind === "publish" ? addressId : publishId)?.focus());
    } catch (e) {
      toast({ title: "Error", description: e instanceof Error ? e.message : "Failed to update the stats page", variant: "destructive" });
    } finally {
      setBusy(null);
    }
  }

  return (
    <Dialog open={link !== null} onClose={onClose} title={`Public stats page: ${link?.title ?? ""}`}>
      <div className="public-stats">
        <p className="muted">
          Anyone with the address sees this link's totals: clicks per day, countries, devices and referring sites. Never a visitor's address or a single click.
        </p>
        {error ? (
          <p role="alert">Failed to load the stats page settings.</p>
        ) : !data ? (
          <p aria-live="polite">Loading…</p>
        ) : data.published && data.url ? (
          <>
            <Field id={addressId} label="Address of the stats page" value={data.url} readOnly onFocus={(e) => e.currentTarget.select()} />
            <div className="row">
              <Button onClick={() => void copyLink(data.url!, "Stats page address copied")}>Copy address</Button>
              <a className="btn btn-secondary btn-md" href={data.url} target="_blank" rel="noopener noreferrer">Open page</a>
            </div>
            {/* Not disabled while a change is sent (a disabled button drops the keyboard's focus):
                change() ignores a press meanwhile. */}
            <div className="row">
              <Button variant="secondary" aria-busy={busy === "renew" || undefined} onClick={() => void change("renew")}>New address</Button>
              <Button variant="danger" aria-busy={busy === "revoke" || undefined} onClick={() => void change("revoke")}>Stop publishing</Button>
            </div>
          </>
        ) : (
          <div className="row">
            <Button id={publishId} aria-busy={busy === "publish" || undefined} onClick={() => void change("publish")}>Publish stats page</Button>
          </div>
        )}
      </div>
    </Dialog>
  );
}
