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

/** A modal dialog: focus is trapped, Escape and the close button dismiss it. */
export function Dialog(props: DialogProps) {
  const popups = usePopups(props.open, props.onClose);
  if (!popups) return props.open ? <Loading /> : null;
  return <popups.DialogPopup {...props} />;
}

/** 'Are you sure?' with Cancel and a destructive confirm button. */
export function ConfirmDialog(props: ConfirmProps) {
  const popups = usePopups(props.open, props.onCancel);
  if (!popups) return props.open ? <Loading /> : null;
  return <popups.ConfirmPopup {...props} />;
}
