import { useId, useRef, useState, type KeyboardEvent } from "react";
import { triggerProps, usePopups } from "./lazyPopups";
import type { MenuFocus, OptionSpec } from "./popups";

/**
 * A button that opens a list of options to tick, several at once (a listbox with
 * aria-multiselectable): Enter, Space or ArrowDown open it, arrows move, Enter or Space tick,
 * Escape closes back onto the button. As `Menu`, the button is plain React and the list itself
 * (ariakit) is fetched when the pointer or focus first reaches it. The button's name is the
 * label and then what is chosen ("Filter by tag: spring, sale").
 */
export function MultiSelect({
  label,
  options,
  value,
  onChange,
  summary,
  className = "",
}: {
  label: string;
  options: (OptionSpec & { label: string })[];
  value: string[];
  onChange: (value: string[]) => void;
  /** What the button shows: the chosen options, or the text for none. */
  summary: string;
  className?: string;
}) {
  const ref = useRef<HTMLButtonElement>(null);
  const labelId = useId();
  const [open, setOpen] = useState(false);
  const [opening, setOpening] = useState<{ n: number; focus: MenuFocus } | null>(null);
  const popups = usePopups(opening !== null, () => setOpen(false));
  const show = (focus: MenuFocus) => {
    setOpening((o) => ({ n: (o?.n ?? 0) + 1, focus }));
    setOpen(true);
  };
  // Pointer or keyboard, the list opens on its first option: its options take the focus.
  const onClick = () => {
    if (open) setOpen(false);
    else show("first");
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    e.preventDefault();
    show(e.key === "ArrowDown" ? "first" : "last");
  };
  return (
    <>
      <span id={labelId} className="sr-only">{label}:</span>
      <button
        ref={ref}
        type="button"
        className={`select-button ${className}`}
        aria-labelledby={`${labelId} ${labelId}-value`}
        aria-haspopup="listbox"
        {...triggerProps(open, popups)}
        onClick={onClick}
        onKeyDown={onKeyDown}
      >
        <span id={`${labelId}-value`} className="select-button-text">{summary}</span>
        <span className="select-button-arrow" aria-hidden="true">▾</span>
      </button>
      {popups && opening && ref.current && (
        <popups.MultiSelectPopup
          key={opening.n}
          anchor={ref.current}
          focus={opening.focus}
          open={open}
          onOpenChange={setOpen}
          options={options}
          value={value}
          onChange={onChange}
          label={label}
        />
      )}
    </>
  );
}
