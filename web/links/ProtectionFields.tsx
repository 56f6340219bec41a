import { Field } from "../ui/Field";

/** The password and click-limit part of a link's smart settings, as a form holds it. */
export type Protection = { password: string; removePassword: boolean; maxClicks: string; fallbackUrl: string };

export const NO_PROTECTION: Protection = { password: "", removePassword: false, maxClicks: "", fallbackUrl: "" };

/**
 * The settings' body fields for `p`: the password (absent keeps the current one, null removes
 * it), the click limit and its fallback. One reading for the Smart settings and create dialogs.
 */
export function protectionBody(p: Protection) {
  return {
    ...(p.removePassword ? { password: null } : p.password ? { password: p.password } : {}),
    maxClicks: p.maxClicks.trim() === "" ? null : Number(p.maxClicks),
    fallbackUrl: p.fallbackUrl.trim() || null,
  };
}

/**
 * Password and click limit with fallback (issue 24): the Smart settings dialog edits a link's,
 * the create dialog sets them at creation. `hasPassword`/`clicks` describe a saved link (none on create).
 */
export function ProtectionFields({ value, onChange, disabled, hasPassword = false, clicks }: { value: Protection; onChange: (patch: Partial<Protection>) => void; disabled?: boolean; hasPassword?: boolean; clicks?: number }) {
  return (
    <>
      <fieldset className="stack" disabled={disabled}>
        <legend>Password</legend>
        <p className="muted">{hasPassword ? "This link is password protected." : "Visitors must enter this password before they are redirected."}</p>
        <Field label={hasPassword ? "New password (leave empty to keep)" : "Password (Optional)"} type="password" autoComplete="new-password" value={value.password} onChange={(e) => onChange({ password: e.target.value, removePassword: false })} />
        {hasPassword && (
          <label className="check">
            <input type="checkbox" checked={value.removePassword} onChange={(e) => onChange({ removePassword: e.target.checked, password: "" })} /> Remove the password
          </label>
        )}
      </fieldset>
      <fieldset className="stack" disabled={disabled}>
        <legend>Click limit</legend>
        <Field label="Maximum clicks (Optional)" type="number" min={1} inputMode="numeric" value={value.maxClicks} onChange={(e) => onChange({ maxClicks: e.target.value })} {...(clicks === undefined ? {} : { hint: `Counted so far: ${clicks}.` })} />
        <Field label="Fallback URL after the limit (Optional)" type="url" inputMode="url" placeholder="https://example.com/sold-out" value={value.fallbackUrl} onChange={(e) => onChange({ fallbackUrl: e.target.value })} hint="Without one, the link shows a 'no longer available' page." />
      </fieldset>
    </>
  );
}
