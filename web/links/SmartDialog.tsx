import { useEffect, useId, useState, type FormEvent } from "react";
import useSWR from "swr";
import * as v from "valibot";
import { Dialog } from "../ui/Dialog";
import { Button } from "../ui/Button";
import { Field, Select } from "../ui/Field";
import { toast } from "../ui/Toast";
import { api, ApiError, fetcher } from "../lib/api";
import { validateForm } from "../lib/forms";
import { BROWSERS, DEVICES, LANGUAGE_MIN_Q, OSES, SimulateBody, SmartInput, type Decision, type SmartView } from "../../src/smart/schema";
import type { LinkView } from "./types";
import { ProtectionFields, protectionBody, type Protection } from "./ProtectionFields";

// id: the rule's stable id from the API (absent for a new rule), sent back so a moved or
// edited rule keeps its clicks in the analytics.
type RuleForm = { id?: number; name: string; url: string; device: string; os: string; browser: string; language: string; country: string; city: string; from: string; until: string };
type VariantForm = { id?: number; name: string; url: string; weight: string };
type Form = Protection & {
  rules: RuleForm[];
  splitOn: boolean;
  sticky: boolean;
  variants: VariantForm[];
};

const EMPTY_RULE: RuleForm = { name: "", url: "", device: "", os: "", browser: "", language: "", country: "", city: "", from: "", until: "" };
const list = (s: string) => s.split(",").map((x) => x.trim()).filter(Boolean);
/** datetime-local wants local time without a zone; the API speaks UTC ISO. */
const toLocal = (iso: string | null | undefined) => {
  if (!iso) return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const toIso = (local: string) => (local ? new Date(local).toISOString() : null);

function formOf(v: SmartView): Form {
  return {
    password: "",
    removePassword: false,
    maxClicks: v.maxClicks === null ? "" : String(v.maxClicks),
    fallbackUrl: v.fallbackUrl ?? "",
    rules: v.rules.map((r) => {
      const w = r.when as Record<string, string[] | string | null | undefined>;
      const join = (k: string) => (Array.isArray(w[k]) ? (w[k] as string[]).join(", ") : "");
      return { id: r.id, name: r.name, url: r.url, device: join("device"), os: join("os"), browser: join("browser"), language: join("language"), country: join("country"), city: join("city"), from: toLocal(w.from as string), until: toLocal(w.until as string) };
    }),
    splitOn: v.split !== null,
    sticky: v.split?.sticky ?? true,
    variants: v.split?.variants.map((x) => ({ id: x.id, name: x.name, url: x.url, weight: String(x.weight) })) ?? [
      { name: "", url: "", weight: "50" },
      { name: "", url: "", weight: "50" },
    ],
  };
}

function bodyOf(f: Form) {
  const when = (r: RuleForm) => {
    const w: Record<string, unknown> = {};
    for (const k of ["device", "os", "browser", "language", "country", "city"] as const) if (list(r[k]).length) w[k] = list(r[k]);
    // The closed lists' values are lower-case single words ("ios", "chromeos"): "iOS" or "Chrome OS"
    // as people write them mean the same and were refused.
    for (const k of ["device", "os", "browser"] as const) if (w[k]) w[k] = (w[k] as string[]).map((x) => x.toLowerCase().replace(/\s+/g, ""));
    if (r.from) w.from = toIso(r.from);
    if (r.until) w.until = toIso(r.until);
    return w;
  };
  return {
    ...protectionBody(f),
    rules: f.rules.map((r) => ({ id: r.id, name: r.name, url: r.url, when: when(r) })),
    split: f.splitOn ? { sticky: f.sticky, variants: f.variants.map((x) => ({ id: x.id, name: x.name, url: x.url, weight: Number(x.weight) })) } : null,
  };
}

/**
 * A problem's message with the rule or split destination it belongs to ("Rule 3: Countries are
 * two-letter codes…"): the dialog holds many rules with the same fields, and one message at the
 * bottom did not say which. `path` is the field's path, as valibot's issue or the server's
 * `fields` key ("rules.2.when.country.0") gives it.
 */
function placedMessage(message: string, path: readonly (string | number)[]) {
  const [head, a, b] = path.map(String);
  if (head === "rules" && a !== undefined && /^\d+$/.test(a)) return `Rule ${Number(a) + 1}: ${message}`;
  if (head === "split" && a === "variants" && b !== undefined && /^\d+$/.test(b)) return `Destination ${String.fromCharCode(65 + Number(b))}: ${message}`;
  return message;
}

const choices = (values: readonly string[]) => [{ value: "", label: "Any" }, ...values.map((v) => ({ value: v, label: v }))];

/**
 * A link's smart settings (issue 24): password, click limit and fallback, redirect rules (first
 * match wins), A/B split; and the rule simulator, which asks the server where a visitor would go.
 */
export function SmartDialog({ link, apiBase, onClose, onSaved }: { link: LinkView | null; apiBase: string; onClose: () => void; onSaved: () => void }) {
  const key = link ? `${apiBase}/${link.id}/smart` : null;
  const { data, mutate } = useSWR<SmartView>(key, fetcher);
  const [form, setForm] = useState<Form | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ids = useId();
  // Filled again at every opening (the settings may be cached from the last one).
  useEffect(() => {
    if (data && link) setForm(formOf(data));
  }, [data, link]);
  useEffect(() => {
    if (!link) {
      setForm(null);
      setError(null);
    }
  }, [link]);

  if (!link) return null;
  const set = (patch: Partial<Form>) => setForm((f) => (f ? { ...f, ...patch } : f));
  const setRule = (i: number, patch: Partial<RuleForm>) => set({ rules: form!.rules.map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  /**
   * First match wins, so the order is the setting: a rule moves one place at a time, and the
   * focus goes with it (to the same button of its new place, else the other one at an end).
   */
  const moveRule = (i: number, by: -1 | 1) => {
    const j = i + by;
    const rules = [...form!.rules];
    [rules[i], rules[j]] = [rules[j]!, rules[i]!];
    set({ rules });
    requestAnimationFrame(() => (document.getElementById(`${ids}-rule-${j}-${by < 0 ? "up" : "down"}`) ?? document.getElementById(`${ids}-rule-${j}-${by < 0 ? "down" : "up"}`))?.focus());
  };
  const setVariant = (i: number, patch: Partial<VariantForm>) => set({ variants: form!.variants.map((x, j) => (j === i ? { ...x, ...patch } : x)) });

  async function save(e: FormEvent) {
    e.preventDefault();
    if (!form) return;
    const body = bodyOf(form);
    // The schema's first problem, whether a field's or the whole settings' (a fallback without a limit).
    const checked = v.safeParse(SmartInput, body, { abortEarly: true });
    if (!checked.success) {
      const issue = checked.issues[0];
      setError(issue ? placedMessage(issue.message, (issue.path ?? []).map((p) => p.key as string | number)) : "Please check the settings");
      return;
    }
    setError(null);
    setBusy(true);
    try {
      await mutate(await api<SmartView>(key!, { method: "PUT", body }), { revalidate: false });
      toast({ title: "Smart settings saved" });
      onSaved();
      onClose();
    } catch (err) {
      const field = err instanceof ApiError && err.fields ? Object.keys(err.fields)[0] : undefined;
      const message = err instanceof ApiError ? placedMessage(err.message, field ? field.split(".") : []) : "Could not save the settings";
      setError(message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open onClose={onClose} title={`Smart settings: ${link.title}`} description="Protect the link, limit its clicks, send visitors to different places, and test who goes where." wide>
      {!form ? (
        <p className="muted">Loading…</p>
      ) : (
        <div className="stack">
          <form onSubmit={save} noValidate className="stack smart-form">
            <ProtectionFields value={form} onChange={set} disabled={busy} hasPassword={data?.hasPassword ?? false} clicks={data?.clicks ?? 0} />
            <fieldset className="stack" disabled={busy}>
              <legend>Redirect rules</legend>
              <p className="muted">Tried in order; the first rule whose conditions all hold wins. Separate several values with commas. A language matches at quality {LANGUAGE_MIN_Q} or more.</p>
              {form.rules.map((r, i) => (
                <div key={i} className="smart-rule stack" role="group" aria-label={`Rule ${i + 1}`}>
                  <div className="smart-grid">
                    <Field id={`${ids}-rule-${i}-name`} label={`Rule ${i + 1} name`} value={r.name} onChange={(e) => setRule(i, { name: e.target.value })} />
                    <Field label={`Rule ${i + 1} destination`} type="url" inputMode="url" value={r.url} onChange={(e) => setRule(i, { url: e.target.value })} />
                    <Field label="Devices" hint={DEVICES.join(", ")} value={r.device} onChange={(e) => setRule(i, { device: e.target.value })} />
                    <Field label="Operating systems" hint={OSES.join(", ")} value={r.os} onChange={(e) => setRule(i, { os: e.target.value })} />
                    <Field label="Browsers" hint={BROWSERS.join(", ")} value={r.browser} onChange={(e) => setRule(i, { browser: e.target.value })} />
                    <Field label="Languages" hint="e.g. en, pt-BR" value={r.language} onChange={(e) => setRule(i, { language: e.target.value })} />
                    <Field label="Countries" hint="Two-letter codes, e.g. US, DE" value={r.country} onChange={(e) => setRule(i, { country: e.target.value })} />
                    <Field label="Cities" hint="Needs city data: GEOIP_DB on the server, or a CDN's city header." value={r.city} onChange={(e) => setRule(i, { city: e.target.value })} />
                    <Field label="From" type="datetime-local" value={r.from} onChange={(e) => setRule(i, { from: e.target.value })} />
                    <Field label="Until" type="datetime-local" value={r.until} onChange={(e) => setRule(i, { until: e.target.value })} />
                  </div>
                  <div className="row">
                    {i > 0 && <Button id={`${ids}-rule-${i}-up`} variant="secondary" size="sm" onClick={() => moveRule(i, -1)}>{`Move rule ${i + 1} up`}</Button>}
                    {i < form.rules.length - 1 && <Button id={`${ids}-rule-${i}-down`} variant="secondary" size="sm" onClick={() => moveRule(i, 1)}>{`Move rule ${i + 1} down`}</Button>}
                    <Button variant="secondary" size="sm" onClick={() => set({ rules: form.rules.filter((_, j) => j !== i) })}>{`Remove rule ${i + 1}`}</Button>
                  </div>
                </div>
              ))}
              <Button
                variant="secondary"
                onClick={() => {
                  set({ rules: [...form.rules, { ...EMPTY_RULE }] });
                  // The new rule's fields appear above the button: the focus goes to its first one.
                  requestAnimationFrame(() => document.getElementById(`${ids}-rule-${form.rules.length}-name`)?.focus());
                }}
              >
                Add rule
              </Button>
            </fieldset>
            <fieldset className="stack" disabled={busy}>
              <legend>A/B split</legend>
              <label className="check">
                <input type="checkbox" checked={form.splitOn} onChange={(e) => set({ splitOn: e.target.checked })} /> Split visitors no rule matched between destinations
              </label>
              {form.splitOn && (
                <>
                  <label className="check">
                    <input type="checkbox" checked={form.sticky} onChange={(e) => set({ sticky: e.target.checked })} /> Sticky: a visitor gets the same destination for 24 hours
                  </label>
                  {form.variants.map((x, i) => {
                    const letter = String.fromCharCode(65 + i);
                    return (
                      <div key={i} className="smart-grid" role="group" aria-label={`Destination ${letter}`}>
                        <Field label={`Destination ${letter} URL`} type="url" inputMode="url" value={x.url} onChange={(e) => setVariant(i, { url: e.target.value })} />
                        <Field label={`Destination ${letter} weight`} type="number" min={1} max={1000} value={x.weight} onChange={(e) => setVariant(i, { weight: e.target.value })} />
                        {form.variants.length > 2 && <Button variant="secondary" size="sm" onClick={() => set({ variants: form.variants.filter((_, j) => j !== i) })}>{`Remove destination ${letter}`}</Button>}
                      </div>
                    );
                  })}
                  {form.variants.length < 10 && <Button variant="secondary" onClick={() => set({ variants: [...form.variants, { name: "", url: "", weight: "50" }] })}>Add destination</Button>}
                </>
              )}
            </fieldset>
            {error && <p className="field-error" role="alert">{error}</p>}
            <div className="dialog-actions">
              <Button variant="secondary" onClick={onClose}>Cancel</Button>
              <Button type="submit" busy={busy}>Save settings</Button>
            </div>
          </form>
          <Simulator simulateUrl={`${apiBase}/${link.id}/simulate`} />
        </div>
      )}
    </Dialog>
  );
}

/** Asks the server where the saved settings send a visitor, and shows why. */
function Simulator({ simulateUrl }: { simulateUrl: string }) {
  const [facts, setFacts] = useState({ country: "", city: "", device: "", os: "", browser: "", language: "", at: "" });
  const [result, setResult] = useState<Decision | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof facts) => (e: { target: { value: string } }) => setFacts((f) => ({ ...f, [k]: e.target.value }));

  async function run(useRequest: boolean) {
    const body = useRequest
      ? { useRequest: true }
      : {
          country: facts.country || null,
          city: facts.city || null,
          device: facts.device || null,
          os: facts.os || null,
          browser: facts.browser || null,
          language: facts.language || null,
          at: facts.at ? new Date(facts.at).toISOString() : null,
        };
    const checked = validateForm(SimulateBody, body);
    if (!checked.ok) {
      setError(Object.values(checked.errors)[0] ?? "Please check the visitor");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      setResult(await api<Decision>(simulateUrl, { method: "POST", body }));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : "Could not simulate");
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="stack smart-simulator" aria-labelledby="sim-heading">
      <h3 id="sim-heading">Rule simulator</h3>
      <p className="muted">Uses the saved settings. Describe a visitor, or use this browser now.</p>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void run(false);
        }}
      >
        <div className="smart-grid">
          <Field label="Country" placeholder="DE" value={facts.country} onChange={set("country")} maxLength={2} />
          <Field label="City" value={facts.city} onChange={set("city")} />
          <Select label="Device" value={facts.device} onChange={set("device")} options={choices(DEVICES)} />
          <Select label="Operating system" value={facts.os} onChange={set("os")} options={choices(OSES)} />
          <Select label="Browser" value={facts.browser} onChange={set("browser")} options={choices(BROWSERS)} />
          <Field label="Language" placeholder="de-DE,de;q=0.9,en;q=0.8" value={facts.language} onChange={set("language")} />
          <Field label="Time" type="datetime-local" value={facts.at} onChange={set("at")} hint="Empty: now." />
        </div>
        <div className="dialog-actions">
          <Button variant="secondary" onClick={() => void run(true)} busy={busy}>This browser, now</Button>
          <Button type="submit" busy={busy}>Simulate</Button>
        </div>
      </form>
      <div aria-live="polite">
        {error && <p className="field-error" role="alert">{error}</p>}
        {result && (
          <div className="stack smart-result">
            <p>
              <strong>{result.destination ? "Goes to: " : "Shows the 'no longer available' page"}</strong>
              {result.destination && <code className="break">{result.destination}</code>}
            </p>
            <p>{result.reason}</p>
            {result.passwordFirst && <p className="muted">The password page comes first.</p>}
            {result.steps.length > 0 && (
              <ol className="smart-steps">
                {result.steps.map((s, i) => (
                  <li key={i}>
                    {s.matched ? "✓" : "✗"} {s.rule}: {s.why}
                  </li>
                ))}
              </ol>
            )}
          </div>
        )}
      </div>
    </section>
  );
}
