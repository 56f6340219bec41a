import { useId, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes, type SelectHTMLAttributes } from "react";

type Common = { label: ReactNode; error?: string; hint?: ReactNode; hideLabel?: boolean };

/** A labelled input with its error announced and linked (aria-describedby). */
export function Field({ label, error, hint, hideLabel, id, className = "", ...input }: Common & InputHTMLAttributes<HTMLInputElement>) {
  const auto = useId();
  const fid = id ?? auto;
  return (
    <div className={`field ${className}`}>
      <label htmlFor={fid} className={hideLabel ? "sr-only" : undefined}>{label}</label>
      <input id={fid} aria-invalid={error ? true : undefined} aria-describedby={error ? `${fid}-err` : hint ? `${fid}-hint` : undefined} {...input} />
      {hint && !error && <p id={`${fid}-hint`} className="hint">{hint}</p>}
      {error && <p id={`${fid}-err`} className="field-error" role="alert">{error}</p>}
    </div>
  );
}

export function TextArea({ label, error, hint, hideLabel, id, className = "", ...input }: Common & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const auto = useId();
  const fid = id ?? auto;
  return (
    <div className={`field ${className}`}>
      <label htmlFor={fid} className={hideLabel ? "sr-only" : undefined}>{label}</label>
      <textarea id={fid} aria-invalid={error ? true : undefined} aria-describedby={error ? `${fid}-err` : undefined} {...input} />
      {hint && !error && <p className="hint">{hint}</p>}
      {error && <p id={`${fid}-err`} className="field-error" role="alert">{error}</p>}
    </div>
  );
}

/** A native select: accessible and keyboard-friendly on every platform. */
export function Select({ label, hideLabel, id, options, className = "", ...rest }: Omit<Common, "error" | "hint"> & SelectHTMLAttributes<HTMLSelectElement> & { options: { value: string; label: string }[] }) {
  const auto = useId();
  const fid = id ?? auto;
  return (
    <div className={`field field-inline ${className}`}>
      <label htmlFor={fid} className={hideLabel ? "sr-only" : undefined}>{label}</label>
      <select id={fid} {...rest}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>{o.label}</option>
        ))}
      </select>
    </div>
  );
}
