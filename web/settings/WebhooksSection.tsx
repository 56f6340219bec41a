import { useId, useState, type FormEvent } from "react";
import useSWR from "swr";
import { Button } from "../ui/Button";
import { ConfirmDialog, Dialog } from "../ui/Dialog";
import { Field } from "../ui/Field";
import { Spinner } from "../ui/Spinner";
import { toast, toastError } from "../ui/Toast";
import { api, ApiError } from "../lib/api";
import { validateForm } from "../lib/forms";
import { copyLink, formatDate } from "../links/format";
import { EVENT_TYPES, type EventType } from "../../src/events/schema";
import { CreateWebhookBody, type DeliverySummary, type WebhookView } from "../../src/webhooks/schema";

const HOOKS = "/api/webhooks";

const EVENT_LABELS: Record<EventType, string> = {
  "link.created": "Link created",
  "link.updated": "Link edited",
  "link.deleted": "Link deleted",
  "clicks.recorded": "Clicks recorded",
  "title.added": "Title added",
  "invite.accepted": "Invite accepted",
  "import.finished": "Import finished",
};

type Errors = Partial<Record<"url" | "events", string>>;

/** One endpoint's delivery log, newest first, with Redeliver (issue 26). */
function Deliveries({ hook }: { hook: WebhookView }) {
  const key = `${HOOKS}/${hook.id}/deliveries`;
  // Read afresh each time the log is opened: caches never go stale in this app (spec §7), and a
  // log kept from an earlier opening would still say "pending" for what has since been sent.
  const { data, error, isLoading, isValidating, mutate } = useSWR<DeliverySummary[]>(key, { revalidateOnMount: true, dedupingInterval: 0 });
  const [busy, setBusy] = useState<number | null>(null);
  async function redeliver(d: DeliverySummary) {
    if (busy !== null) return;
    setBusy(d.id);
    try {
      await api(`${key}/${d.id}/redeliver`, { method: "POST" });
      toast({ title: "Delivery queued again" });
      await mutate();
    } catch (err) {
      toastError(err, "Failed to redeliver");
    } finally {
      setBusy(null);
    }
  }
  if (isLoading) return <Spinner label="Loading deliveries" />;
  if (error && !data) return <p role="alert">{error.message || "Failed to load deliveries"}</p>;
  // Deliveries are sent in the background, so the log is read again on request.
  const refresh = (
    <div className="row">
      <Button size="sm" variant="secondary" aria-busy={(isValidating && !isLoading) || undefined} onClick={() => void mutate()} aria-label={`Refresh deliveries to ${hook.url}`}>
        Refresh log
      </Button>
    </div>
  );
  if (!data?.length)
    return (
      <>
        <p className="muted">No deliveries yet.</p>
        {refresh}
      </>
    );
  return (
    <>
      {refresh}
      <ul className="stack" aria-label={`Deliveries to ${hook.url}`}>
        {data.map((d) => (
          <li key={d.id} className="row link-meta">
            <span className="badge">{d.state}</span>
            <span>{d.eventType}</span>
            <code>{d.eventId}</code>
            <span className="muted">
              {d.lastStatus !== null ? `HTTP ${d.lastStatus}` : d.lastError ?? "not sent yet"}
              {d.lastLatencyMs !== null ? ` · ${d.lastLatencyMs} ms` : ""} · {d.attempts} {d.attempts === 1 ? "attempt" : "attempts"} · {formatDate(d.createdAt)}
            </span>
            {d.lastResponse ? <code className="muted">{d.lastResponse.slice(0, 80)}</code> : null}
            {/* Not disabled while it is sent (a disabled button drops the keyboard's focus to the
                page's body): a second press meanwhile asks for nothing. */}
            {/* A redelivered event has two deliveries in the log, and every endpoint's log has its own
                evt_N rows: the name says which delivery of which event, to which endpoint. */}
            <Button
              size="sm"
              variant="secondary"
              aria-busy={busy === d.id || undefined}
              onClick={() => void redeliver(d)}
              aria-label={`Redeliver ${d.eventId}, delivery ${d.id}, to ${hook.url}`}
            >
              Redeliver
            </Button>
          </li>
        ))}
      </ul>
    </>
  );
}

/** Settings → Webhooks: endpoints, the events each wants, its log. The secret is shown once. */
export function WebhooksSection() {
  const { data, error, isLoading, mutate } = useSWR<WebhookView[]>(HOOKS);
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<EventType[]>(["link.created", "clicks.recorded"]);
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  // The secret to show once: from adding an endpoint, or from rotating one (`rotated`: its id).
  const [secret, setSecret] = useState<string | null>(null);
  const [rotated, setRotated] = useState<number | null>(null);
  const [rotating, setRotating] = useState<WebhookView | null>(null);
  const [rotateBusy, setRotateBusy] = useState(false);
  const [open, setOpen] = useState<number | null>(null);
  const [removing, setRemoving] = useState<WebhookView | null>(null);
  const [removeBusy, setRemoveBusy] = useState(false);
  const urlId = useId();

  const toggle = (t: EventType) => setEvents((es) => (es.includes(t) ? es.filter((x) => x !== t) : EVENT_TYPES.filter((x) => x === t || es.includes(x))));

  async function add(e: FormEvent) {
    e.preventDefault();
    const checked = validateForm(CreateWebhookBody, { url, events });
    if (!checked.ok) {
      setErrors(checked.errors as Errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const made = await api<WebhookView & { secret: string }>(HOOKS, { method: "POST", body: { url, events } });
      setSecret(made.secret);
      setUrl("");
      await mutate();
    } catch (err) {
      if (err instanceof ApiError && err.fields) setErrors(err.fields as Errors);
      toastError(err, "Failed to add webhook");
    } finally {
      setBusy(false);
    }
  }

  // The form was disabled while the endpoint was added, so focus had left it for the page's
  // body before the secret's dialog opened: closing the dialog brings it back to the URL field.
  // After a rotation it goes back to that endpoint's Rotate secret button, where the user was.
  function closeSecret() {
    const from = rotated;
    setSecret(null);
    setRotated(null);
    requestAnimationFrame(() => {
      const target = from !== null ? document.querySelector<HTMLElement>(`[data-rotate-hook="${from}"]`) : null;
      (target ?? document.getElementById(urlId))?.focus();
    });
  }

  // PUT with rotateSecret: the endpoint's other settings are sent back as they are listed.
  async function rotate() {
    if (!rotating) return;
    const w = rotating;
    setRotateBusy(true);
    try {
      const made = await api<WebhookView & { secret: string }>(`${HOOKS}/${w.id}`, {
        method: "PUT",
        body: { url: w.url, events: w.events, linkIds: w.linkIds, enabled: w.enabled, rotateSecret: true },
      });
      setRotating(null);
      setRotated(w.id);
      setSecret(made.secret);
      await mutate();
    } catch (err) {
      toastError(err, "Failed to rotate the secret");
    } finally {
      setRotateBusy(false);
    }
  }

  async function setEnabled(w: WebhookView, enabled: boolean) {
    try {
      await api(`${HOOKS}/${w.id}`, { method: "PUT", body: { url: w.url, events: w.events, linkIds: w.linkIds, enabled } });
      toast({ title: enabled ? "Webhook turned on" : "Webhook turned off" });
      await mutate();
    } catch (err) {
      toastError(err, "Failed to change webhook");
    }
  }

  async function remove() {
    if (!removing) return;
    setRemoveBusy(true);
    // The Delete button that opened the dialog goes with its webhook, and focus would fall to the
    // page's body: it moves to the next webhook's Delete (the one before at the end), or the form.
    const hooks = data ?? [];
    const at = hooks.findIndex((w) => w.id === removing.id);
    const next = hooks[at + 1] ?? hooks[at - 1];
    try {
      await api(`${HOOKS}/${removing.id}`, { method: "DELETE" });
      toast({ title: "Webhook deleted" });
      setRemoving(null);
      await mutate();
      requestAnimationFrame(() => {
        const target = next ? document.querySelector<HTMLElement>(`[data-delete-hook="${next.id}"]`) : document.getElementById(urlId);
        target?.focus();
      });
    } catch (err) {
      toastError(err, "Failed to delete webhook");
    } finally {
      setRemoveBusy(false);
    }
  }

  let list;
  if (isLoading) list = <div className="empty"><Spinner label="Loading webhooks" /></div>;
  else if (error && !data) list = <p className="empty" role="alert">{error.message || "Failed to load webhooks"}</p>;
  else if (!data?.length) list = <p className="empty">You have no webhooks yet.</p>;
  else
    list = (
      <ul className="link-list" aria-label="Webhooks">
        {data.map((w) => (
          <li key={w.id} className="card link-card">
            <h3 className="link-title">{w.url}</h3>
            <p className="row link-meta">
              <span className={w.enabled ? "badge badge-primary" : "badge"}>{w.enabled ? "On" : "Off"}</span>
              {w.events.map((t) => <span key={t} className="badge">{EVENT_LABELS[t]}</span>)}
              {w.linkIds ? <span className="muted">Only links {w.linkIds.join(", ")}</span> : null}
            </p>
            <p className="link-meta muted">
              Secret …{w.secretHint} · Added {formatDate(w.createdAt)}
              {w.failures ? ` · ${w.failures} failed in a row` : ""}
              {w.disabledReason ? ` · ${w.disabledReason}` : ""}
            </p>
            <div className="row">
              {/* The visible words stay short; each name says which endpoint it acts on (the same
                  words on every card told a screen reader's list of buttons nothing). */}
              <Button
                size="sm"
                variant="secondary"
                onClick={() => setOpen(open === w.id ? null : w.id)}
                aria-expanded={open === w.id}
                aria-label={`${open === w.id ? "Hide deliveries" : "Deliveries"} to ${w.url}`}
              >
                {open === w.id ? "Hide deliveries" : "Deliveries"}
              </Button>
              <Button size="sm" variant="secondary" onClick={() => void setEnabled(w, !w.enabled)} aria-label={`${w.enabled ? "Turn off" : "Turn on"} webhook ${w.url}`}>
                {w.enabled ? "Turn off" : "Turn on"}
              </Button>
              <Button size="sm" variant="secondary" onClick={() => setRotating(w)} aria-label={`Rotate secret of webhook ${w.url}`} data-rotate-hook={w.id}>
                Rotate secret
              </Button>
              <Button size="sm" variant="danger" onClick={() => setRemoving(w)} aria-label={`Delete webhook ${w.url}`} data-delete-hook={w.id}>Delete</Button>
            </div>
            {open === w.id ? <Deliveries hook={w} /> : null}
          </li>
        ))}
      </ul>
    );

  return (
    <>
      <section className="card stack" aria-labelledby="webhooks-heading" id="webhooks">
        <h2 id="webhooks-heading">Webhooks</h2>
        <p className="muted">
          Threadlink POSTs each event you choose to your URL as signed JSON, retrying for 24 hours, in order. The README's Webhooks section shows
          how to check the signature.
        </p>
        <form onSubmit={add} noValidate>
          <fieldset className="stack" disabled={busy}>
            <legend className="sr-only">Add a webhook</legend>
            <Field id={urlId} label="Endpoint URL" type="url" value={url} onChange={(e) => setUrl(e.target.value)} error={errors.url} placeholder="https://hooks.example.com/threadlink" required />
            <fieldset className="stack">
              <legend>Events</legend>
              <div className="row webhook-events">
                {EVENT_TYPES.map((t) => (
                  <label key={t} className="row">
                    <input type="checkbox" checked={events.includes(t)} onChange={() => toggle(t)} /> {EVENT_LABELS[t]}
                  </label>
                ))}
              </div>
              {errors.events ? <p className="field-error" role="alert">{errors.events}</p> : null}
            </fieldset>
            <div className="row">
              <Button type="submit" busy={busy}>Add webhook</Button>
            </div>
          </fieldset>
        </form>
      </section>
      <section className="stack" aria-label="Your webhooks">
        {list}
      </section>
      <Dialog
        open={secret !== null}
        onClose={closeSecret}
        title={rotated !== null ? "New signing secret" : "Webhook added"}
        description={
          rotated !== null
            ? "Deliveries are signed with this secret from now on; the old one no longer checks. Copy it now: it will not be shown again."
            : "Copy its signing secret now: it will not be shown again."
        }
      >
        {secret && (
          <div className="stack">
            <Field label="Signing secret" value={secret} readOnly data-autofocus="true" onFocus={(e) => e.currentTarget.select()} spellCheck={false} />
            <div className="dialog-actions">
              <Button variant="secondary" onClick={() => void copyLink(secret, "Secret copied to clipboard")}>Copy secret</Button>
              <Button onClick={closeSecret}>Done</Button>
            </div>
          </div>
        )}
      </Dialog>
      <ConfirmDialog
        open={rotating !== null}
        title="Rotate secret"
        description={`Deliveries to ${rotating?.url ?? ""} will be signed with a new secret at once, so your receiver must be given it: signatures made with the old one stop checking.`}
        confirmLabel="Rotate secret"
        busy={rotateBusy}
        onConfirm={rotate}
        onCancel={() => setRotating(null)}
      />
      <ConfirmDialog
        open={removing !== null}
        title="Delete webhook"
        description={`Deliveries to ${removing?.url ?? ""} stop at once, including any still queued.`}
        confirmLabel="Delete"
        busy={removeBusy}
        onConfirm={remove}
        onCancel={() => setRemoving(null)}
      />
    </>
  );
}
