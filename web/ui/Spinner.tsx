/** An animated ring; `label` is read by screen readers (empty when the text beside it says it). */
export function Spinner({ size = 24, label = "Loading" }: { size?: number; label?: string }) {
  return (
    <span className="spinner" role={label ? "status" : undefined} aria-label={label || undefined} aria-hidden={label ? undefined : true} style={{ width: size, height: size }} />
  );
}

export function FullPageSpinner({ text = "Loading..." }: { text?: string }) {
  return (
    <div className="center-page" role="status" aria-live="polite">
      <Spinner size={36} label="" />
      <p>{text}</p>
    </div>
  );
}
