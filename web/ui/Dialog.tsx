import { useEffect, useRef } from "react";
import { usePopups } from "./lazyPopups";
import type { ConfirmProps, DialogProps } from "./popups";
import { Spinner } from "./Spinner";

// The ariakit dialogs (web/ui/popups.tsx) are fetched the first time one opens; until then
// this stand-in shows where it will be. Closed, a dialog renders nothing either way.
function Loading() {
  return (
    <>
      <div className="backdrop" />
      <div className="dialog dialog-loading">
        <Spinner label="Loading" />
      </div>
    </>
  );
}

/**
 * Focus goes back to what opened a dialog when it closes. Ariakit does this when it hides the
 * dialog itself; a dialog its parent unmounts at once (the analytics dialog, closed by Escape
 * on a tab) left focus on the body. After the close, if focus is on the body, the element
 * focused at opening gets it back when it is still on the page.
 */
let lastOpener: HTMLElement | null = null;
function useFocusReturn(open: boolean) {
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    if (!open) return;
    const active = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    // A dialog that replaces another (a loading frame, then the dialog) returns to the first one's opener.
    if (active && !active.closest("[role=dialog], [role=alertdialog], .dialog")) lastOpener = active;
    opener.current = lastOpener;
    const back = () => {
      const el = opener.current;
      requestAnimationFrame(() => {
        if (el?.isConnected && (!document.activeElement || document.activeElement === document.body)) el.focus();
      });
    };
    return back;
  }, [open]);
}

/** A modal dialog: focus is trapped, Escape and the close button dismiss it. */
export function Dialog(props: DialogProps) {
  useFocusReturn(props.open);
  const popups = usePopups(props.open, props.onClose);
  if (!popups) return props.open ? <Loading /> : null;
  return <popups.DialogPopup {...props} />;
}

/** 'Are you sure?' with Cancel and a destructive confirm button. */
export function ConfirmDialog(props: ConfirmProps) {
  useFocusReturn(props.open);
  const popups = usePopups(props.open, props.onCancel);
  if (!popups) return props.open ? <Loading /> : null;
  return <popups.ConfirmPopup {...props} />;
}
