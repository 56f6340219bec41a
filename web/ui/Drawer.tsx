import * as Ariakit from "@ariakit/react";
import type { ReactNode } from "react";

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

/** A button that opens a modal side drawer: focus is trapped, Escape and ✕ dismiss it. */
export function Drawer({ label, title, button, buttonClassName = "", children }: Props) {
  const store = Ariakit.useDialogStore();
  return (
    <>
      <Ariakit.DialogDisclosure store={store} className={`btn btn-ghost btn-icon ${buttonClassName}`} aria-label={`Open ${label.toLowerCase()}`}>
        {button}
      </Ariakit.DialogDisclosure>
      <Ariakit.Dialog store={store} className="drawer" backdrop={<div className="backdrop" />} aria-label={label} unmountOnHide>
        <div className="dialog-head">
          <Ariakit.DialogHeading className="dialog-title">{title}</Ariakit.DialogHeading>
          <Ariakit.DialogDismiss className="btn btn-ghost btn-icon" aria-label={`Close ${label.toLowerCase()}`}>✕</Ariakit.DialogDismiss>
        </div>
        {children(store.hide)}
      </Ariakit.Dialog>
    </>
  );
}
