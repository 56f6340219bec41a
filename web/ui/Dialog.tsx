import * as Ariakit from "@ariakit/react";
import type { ReactNode } from "react";
import { Button } from "./Button";

type Props = {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  wide?: boolean;
};

/** A modal dialog: focus is trapped, Escape and the close button dismiss it. */
export function Dialog({ open, onClose, title, description, children, wide }: Props) {
  return (
    <Ariakit.Dialog open={open} onClose={onClose} className={`dialog ${wide ? "dialog-wide" : ""}`} backdrop={<div className="backdrop" />} unmountOnHide>
      <div className="dialog-head">
        <Ariakit.DialogHeading className="dialog-title">{title}</Ariakit.DialogHeading>
        <Ariakit.DialogDismiss className="btn btn-ghost btn-icon" aria-label="Close">✕</Ariakit.DialogDismiss>
      </div>
      {description && <Ariakit.DialogDescription className="dialog-desc">{description}</Ariakit.DialogDescription>}
      {children}
    </Ariakit.Dialog>
  );
}

type ConfirmProps = {
  open: boolean;
  title: ReactNode;
  description: ReactNode;
  confirmLabel?: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
};

/** 'Are you sure?' with Cancel and a destructive confirm button. */
export function ConfirmDialog({ open, title, description, confirmLabel = "Delete", busy, onConfirm, onCancel }: ConfirmProps) {
  return (
    <Ariakit.Dialog open={open} onClose={onCancel} className="dialog" role="alertdialog" backdrop={<div className="backdrop" />} unmountOnHide>
      <Ariakit.DialogHeading className="dialog-title">{title}</Ariakit.DialogHeading>
      <Ariakit.DialogDescription className="dialog-desc">{description}</Ariakit.DialogDescription>
      <div className="dialog-actions">
        <Button variant="secondary" onClick={onCancel} autoFocus>Cancel</Button>
        <Button variant="danger" busy={busy} onClick={onConfirm}>{confirmLabel}</Button>
      </div>
    </Ariakit.Dialog>
  );
}
