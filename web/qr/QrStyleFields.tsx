// The style controls of /qr and the brand tracker's QR dialog (issue 25): colours, dot and
// corner shapes, the frame's call to action, and the user's saved styles. The rules are the
// server's own schema (src/qrstyles/schema.ts), so what is refused here is refused there.
import { useId, useState } from "react";
import useSWR from "swr";
import * as v from "valibot";
import { DEFAULT_QR_STYLE, FRAME_TEXT_MAX, QrStyle as QrStyleSchema, SaveQrStyleBody, type SavedQrStyle } from "../../src/qrstyles/schema";
import { api } from "../lib/api";
import { Button } from "../ui/Button";
import { Field, Select } from "../ui/Field";
import { toast, toastError } from "../ui/Toast";
import type { QrStyle } from "./qrStyle";

export const QR_STYLES_KEY = "/api/qr-styles";

const DOT_OPTIONS = [
  { value: "square", label: "Square" },
  { value: "rounded", label: "Rounded" },
  { value: "dots", label: "Dots" },
];
const CORNER_OPTIONS = [
  { value: "square", label: "Square" },
  { value: "rounded", label: "Rounded" },
  { value: "dots", label: "Circles" },
];

/** Per field, why the style cannot be drawn (empty when it can). */
export function styleProblems(style: QrStyle): Partial<Record<keyof QrStyle, string>> {
  const r = v.safeParse(QrStyleSchema, style);
  if (r.success) return {};
  const out: Partial<Record<keyof QrStyle, string>> = {};
  for (const issue of r.issues) {
    const key = (issue.path?.[0]?.key ?? "foreground") as keyof QrStyle;
    out[key] ??= issue.message;
  }
  return out;
}

/** The style as the schema normalises it (#ABC → #aabbcc, frame text trimmed), or null. */
export function parsedStyle(style: QrStyle): QrStyle | null {
  const r = v.safeParse(QrStyleSchema, style);
  return r.success ? r.output : null;
}

const pickable = (hex: string) => (/^#[0-9a-f]{6}$/i.test(hex) ? hex : "#000000");

function ColourField({ label, value, error, onChange }: { label: string; value: string; error?: string; onChange: (hex: string) => void }) {
  const id = useId();
  return (
    <div className="field qr-colour">
      <label htmlFor={id}>{label}</label>
      <div className="qr-colour-row">
        {/* The swatch opens the system picker; the text field takes a typed #rrggbb (and is the keyboard's way in). */}
        <input type="color" className="qr-swatch" value={pickable(value)} onChange={(e) => onChange(e.target.value)} aria-label={`${label} picker`} />
        <input
          id={id}
          value={value}
          spellCheck={false}
          autoComplete="off"
          maxLength={7}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-err` : undefined}
        />
      </div>
      {error && <p id={`${id}-err`} className="field-error" role="alert">{error}</p>}
    </div>
  );
}

/** Colours, shapes and frame; with `signedIn`, the saved styles to pick, save and delete. */
export function QrStyleFields({ style, onChange, signedIn }: { style: QrStyle; onChange: (s: QrStyle) => void; signedIn: boolean }) {
  const problems = styleProblems(style);
  const set = (patch: Partial<QrStyle>) => onChange({ ...style, ...patch });
  return (
    <fieldset className="qr-style stack">
      <legend>Style</legend>
      {signedIn && <SavedStyles style={style} onPick={onChange} />}
      <div className="qr-style-grid">
        <ColourField label="Foreground colour" value={style.foreground} error={problems.foreground} onChange={(foreground) => set({ foreground })} />
        <ColourField label="Background colour" value={style.background} error={problems.background} onChange={(background) => set({ background })} />
        <Select label="Dot shape" className="qr-stacked" options={DOT_OPTIONS} value={style.dots} onChange={(e) => set({ dots: e.target.value as QrStyle["dots"] })} />
        <Select label="Corner shape" className="qr-stacked" options={CORNER_OPTIONS} value={style.corners} onChange={(e) => set({ corners: e.target.value as QrStyle["corners"] })} />
      </div>
      <Field
        label="Frame text (optional)"
        placeholder="Scan me"
        value={style.frameText}
        onChange={(e) => set({ frameText: e.target.value })}
        error={problems.frameText}
        hint={`A frame with this call to action goes around the code; up to ${FRAME_TEXT_MAX} characters. Leave empty for no frame.`}
      />
      {(style.foreground !== DEFAULT_QR_STYLE.foreground || style.background !== DEFAULT_QR_STYLE.background || style.dots !== "square" || style.corners !== "square" || style.frameText !== "") && (
        <Button variant="ghost" size="sm" className="qr-style-reset" onClick={() => onChange({ ...DEFAULT_QR_STYLE })}>
          Reset to black on white
        </Button>
      )}
    </fieldset>
  );
}

function SavedStyles({ style, onPick }: { style: QrStyle; onPick: (s: QrStyle) => void }) {
  const { data, mutate } = useSWR<SavedQrStyle[]>(QR_STYLES_KEY, { onError: (e) => toastError(e, "Failed to load saved styles") });
  const [chosen, setChosen] = useState("");
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const styles = data ?? [];
  const current = styles.find((s) => String(s.id) === chosen) ?? null;

  const pick = (id: string) => {
    setChosen(id);
    const s = styles.find((x) => String(x.id) === id);
    if (s) {
      onPick({ foreground: s.foreground, background: s.background, dots: s.dots, corners: s.corners, frameText: s.frameText });
      setName(s.name);
      setNameError(undefined);
    }
  };

  const save = async () => {
    const checked = v.safeParse(SaveQrStyleBody, { name, ...style });
    if (!checked.success) {
      const nameIssue = checked.issues.find((i) => i.path?.[0]?.key === "name");
      setNameError(nameIssue?.message);
      if (!nameIssue) toast({ title: "Error", description: checked.issues[0].message, variant: "destructive" });
      return;
    }
    setBusy(true);
    try {
      // Saving under the name of one of your styles updates that style.
      const same = styles.find((s) => s.name === checked.output.name);
      const saved = same
        ? await api<SavedQrStyle>(`${QR_STYLES_KEY}/${same.id}`, { method: "PUT", body: checked.output })
        : await api<SavedQrStyle>(QR_STYLES_KEY, { method: "POST", body: checked.output });
      await mutate();
      setChosen(String(saved.id));
      setNameError(undefined);
      toast({ title: same ? `Style "${saved.name}" updated` : `Style "${saved.name}" saved` });
    } catch (e) {
      toastError(e, "Failed to save the style");
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!current) return;
    setBusy(true);
    try {
      await api(`${QR_STYLES_KEY}/${current.id}`, { method: "DELETE" });
      await mutate();
      setChosen("");
      setName("");
      toast({ title: `Style "${current.name}" deleted` });
    } catch (e) {
      toastError(e, "Failed to delete the style");
    } finally {
      setBusy(false);
    }
  };

  const options = [{ value: "", label: styles.length ? "Choose a saved style" : "No saved styles yet" }, ...styles.map((s) => ({ value: String(s.id), label: s.name }))];
  return (
    <div className="qr-saved stack">
      <div className="qr-saved-row">
        <Select label="Saved styles" className="qr-stacked" options={options} value={chosen} onChange={(e) => pick(e.target.value)} disabled={!styles.length} />
        {current && (
          <Button variant="ghost" size="sm" onClick={remove} disabled={busy}>
            Delete style
          </Button>
        )}
      </div>
      <div className="qr-saved-row">
        <Field
          label="Style name"
          className="qr-style-name"
          value={name}
          maxLength={60}
          onChange={(e) => {
            setName(e.target.value);
            if (nameError) setNameError(undefined);
          }}
          error={nameError}
          onKeyDown={(e) => e.key === "Enter" && !busy && save()}
        />
        <Button variant="secondary" size="sm" onClick={save} busy={busy}>
          Save style
        </Button>
      </div>
    </div>
  );
}
