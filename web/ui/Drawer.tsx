import { useState, type ReactNode } from "react";
import { triggerProps, usePopups } from "./lazyPopups";

type Props = {
  /** The accessible name of the drawer, and of its open and close buttons ("Open menu"). */
  label: string;
  title: ReactNode;
  /** What the open button shows (an icon: its name comes from `label`). */
  button: ReactNode;
  buttonClassName?: string;
  /** Gets `close`, so an item can shut the drawer before it navigates or acts. */
  children: (close: () => void) => ReactNode;
};

/**
 * A button that opens a modal side drawer: focus is trapped, Escape and ✕ dismiss it, and
 * focus returns to the button. The drawer itself (ariakit) is fetched when first wanted.
 */
export function Drawer({ label, title, button, buttonClassName = "", children }: Props) {
  const [open, setOpen] = useState(false);
  const close = () => setOpen(false);
  const popups = usePopups(open, close);
  return (
    <>
      <button
        type="button"
        className={`btn btn-ghost btn-icon ${buttonClassName}`}
        aria-label={`Open ${label.toLowerCase()}`}
        aria-haspopup="dialog"
        {...triggerProps(open, popups)}
        onClick={() => setOpen(true)}
      >
        {button}
      </button>
      {popups && (
        <popups.DrawerPopup open={open} onClose={close} label={label} title={title}>
          {children(close)}
        </popups.DrawerPopup>
      )}
    </>
  );
}
