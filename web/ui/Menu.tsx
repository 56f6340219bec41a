import { useRef, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from "react";
import { triggerProps, usePopups } from "./lazyPopups";
import type { MenuFocus, MenuItemSpec } from "./popups";

/**
 * A button that opens a keyboard-navigable menu of actions or links. The button is plain
 * React; the menu itself (ariakit) is fetched when the pointer or focus first reaches it, so a
 * screen full of menus (one per dashboard row on phones) costs nothing until one is used.
 */
export function Menu({ label, button, items, className = "" }: { label: string; button: ReactNode; items: MenuItemSpec[]; className?: string }) {
  const ref = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  // Each opening mounts a fresh menu (key) with that opening's initial focus.
  const [opening, setOpening] = useState<{ n: number; focus: MenuFocus } | null>(null);
  const popups = usePopups(opening !== null, () => setOpen(false));
  const show = (focus: MenuFocus) => {
    setOpening((o) => ({ n: (o?.n ?? 0) + 1, focus }));
    setOpen(true);
  };
  const onClick = (e: MouseEvent) => {
    if (open) setOpen(false);
    // As ariakit's MenuButton: a click by keyboard (Enter, Space) focuses the first item.
    else show(e.detail === 0 ? "first" : "container");
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    e.preventDefault();
    show(e.key === "ArrowDown" ? "first" : "last");
  };
  return (
    <>
      <button
        ref={ref}
        type="button"
        className={`btn btn-ghost btn-md ${className}`}
        aria-label={label}
        aria-haspopup="menu"
        {...triggerProps(open, popups)}
        onClick={onClick}
        onKeyDown={onKeyDown}
      >
        {button}
      </button>
      {popups && opening && ref.current && (
        <popups.MenuPopup key={opening.n} anchor={ref.current} focus={opening.focus} open={open} onOpenChange={setOpen} items={items} label={label} />
      )}
    </>
  );
}
