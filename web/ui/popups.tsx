// The ariakit halves of Menu, Dialog, ConfirmDialog and Drawer: one chunk, loaded the first time
// one of them opens (or when the browser is idle after the first screen), never on the first
// screen's critical path. Import these only through `usePopups` (web/ui/lazyPopups.ts); the
// public components in Menu.tsx, Dialog.tsx and Drawer.tsx render their own trigger buttons.
import * as Ariakit from "@ariakit/react";
import { useState, type ReactNode } from "react";
import { useLocation } from "wouter";
import { Button } from "./Button";

export type MenuItemSpec = { label: ReactNode; onSelect?: () => void; href?: string; danger?: boolean; key?: string };
export type MenuFocus = "container" | "first" | "last";

/**
 * The open menu of `Menu`: anchored to the caller's own trigger button, which is also where
 * focus returns. Mounted afresh for each opening (the caller keys it), so the store starts
 * with that opening's initial focus: the menu itself for a mouse click, the first item for
 * Enter, Space or ArrowDown, the last for ArrowUp (what ariakit's MenuButton does).
 */
export function MenuPopup({
  anchor,
  focus,
  open,
  onOpenChange,
  items,
  label,
}: {
  anchor: HTMLElement;
  focus: MenuFocus;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  items: MenuItemSpec[];
  label: string;
}) {
  const [, navigate] = useLocation();
  const store = Ariakit.useMenuStore({ open, setOpen: onOpenChange });
  // Before the menu's first render: where it is anchored, where focus goes back, and what
  // gets focus when it shows. Nothing subscribes to the store yet, so this triggers no render.
  useState(() => {
    store.setAnchorElement(anchor);
    store.setDisclosureElement(anchor);
    store.setInitialFocus(focus);
    store.setAutoFocusOnShow(true);
  });
  return (
    // unmountOnHide: a closed menu renders nothing.
    <Ariakit.Menu store={store} gutter={6} className="menu" portal unmountOnHide aria-label={label}>
      {items.map((it, i) =>
        it.href ? (
          <Ariakit.MenuItem
            key={it.key ?? i}
            className="menu-item"
            render={<a href={it.href} />}
            onClick={(e) => {
              // Client-side navigation; modified clicks still open a new tab as usual.
              if (e.metaKey || e.ctrlKey || e.shiftKey) return;
              e.preventDefault();
              navigate(it.href!);
            }}
          >
            {it.label}
          </Ariakit.MenuItem>
        ) : (
          <Ariakit.MenuItem key={it.key ?? i} className={`menu-item ${it.danger ? "danger" : ""}`} onClick={it.onSelect}>
            {it.label}
          </Ariakit.MenuItem>
        ),
      )}
    </Ariakit.Menu>
  );
}

export type OptionSpec = { value: string; label: ReactNode };

/**
 * The open list of `MultiSelect`: a listbox whose options toggle (ariakit's select with an
 * array value keeps it open between choices), anchored to the caller's trigger, where focus
 * returns on Escape or Tab. Focus moves into the list (roving focus rather than ariakit's
 * default active-descendant, which needs its own Select button to hold focus).
 */
export function MultiSelectPopup({
  anchor,
  focus,
  open,
  onOpenChange,
  options,
  value,
  onChange,
  label,
}: {
  anchor: HTMLElement;
  focus: MenuFocus;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  options: OptionSpec[];
  value: string[];
  onChange: (value: string[]) => void;
  label: string;
}) {
  const store = Ariakit.useSelectStore({ open, setOpen: onOpenChange, value, setValue: onChange, virtualFocus: false });
  // As MenuPopup: anchored and focused before the first render, when nothing subscribes yet.
  useState(() => {
    store.setAnchorElement(anchor);
    store.setDisclosureElement(anchor);
  });
  return (
    <Ariakit.SelectPopover
      store={store}
      gutter={6}
      className="menu select-list"
      // In place beside its button, not in a portal: a portal needs focus-trap sentinels to
      // keep the tab order (axe: aria-hidden-focus), while in place Tab simply moves on from
      // the list to what follows the button.
      portal={false}
      unmountOnHide
      aria-label={label}
      autoFocusOnShow={(el) => {
        const items = el?.closest(".select-list")?.querySelectorAll<HTMLElement>("[role=option]") ?? [];
        const target = focus === "last" ? items[items.length - 1] : items[0];
        if (!target) return true;
        store.setActiveId(target.id);
        target.focus();
        return false;
      }}
    >
      {options.map((o) => (
        <Ariakit.SelectItem key={o.value} value={o.value} className="menu-item select-item">
          <Ariakit.SelectItemCheck className="select-check" />
          {o.label}
        </Ariakit.SelectItem>
      ))}
    </Ariakit.SelectPopover>
  );
}

export type DialogProps = {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  wide?: boolean;
};

/**
 * Ariakit focuses the first tabbable element, which is ✕ in every dialog head: a dialog opens
 * on its first field instead (an element marked autofocus still wins), else as ariakit chose.
 */
function firstField(chosen: HTMLElement | null) {
  if (!chosen || chosen.matches("[autofocus],[data-autofocus=true]")) return true;
  const field = chosen
    .closest(".dialog")
    ?.querySelector<HTMLElement>("input:not([type=hidden]):not(:disabled), select:not(:disabled), textarea:not(:disabled)");
  if (!field) return true;
  field.focus();
  return false;
}

/** A modal dialog: focus is trapped, Escape and the close button dismiss it. */
export function DialogPopup({ open, onClose, title, description, children, wide }: DialogProps) {
  return (
    <Ariakit.Dialog open={open} onClose={onClose} className={`dialog ${wide ? "dialog-wide" : ""}`} backdrop={<div className="backdrop" />} unmountOnHide autoFocusOnShow={firstField}>
      <div className="dialog-head">
        <Ariakit.DialogHeading className="dialog-title">{title}</Ariakit.DialogHeading>
        <Ariakit.DialogDismiss className="btn btn-ghost btn-icon" aria-label="Close">✕</Ariakit.DialogDismiss>
      </div>
      {description && <Ariakit.DialogDescription className="dialog-desc">{description}</Ariakit.DialogDescription>}
      {children}
    </Ariakit.Dialog>
  );
}

export type ConfirmProps = {
  open: boolean;
  title: ReactNode;
  description: ReactNode;
  confirmLabel?: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
};

/** 'Are you sure?' with Cancel and a destructive confirm button. */
export function ConfirmPopup({ open, title, description, confirmLabel = "Delete", busy, onConfirm, onCancel }: ConfirmProps) {
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

/** The open side drawer of `Drawer`: focus is trapped, Escape and ✕ dismiss it. */
export function DrawerPopup({
  open,
  onClose,
  label,
  title,
  children,
}: {
  open: boolean;
  onClose: () => void;
  label: string;
  title: ReactNode;
  children: ReactNode;
}) {
  return (
    <Ariakit.Dialog open={open} onClose={onClose} className="drawer" backdrop={<div className="backdrop" />} aria-label={label} unmountOnHide>
      <div className="dialog-head">
        <Ariakit.DialogHeading className="dialog-title">{title}</Ariakit.DialogHeading>
        <Ariakit.DialogDismiss className="btn btn-ghost btn-icon" aria-label={`Close ${label.toLowerCase()}`}>✕</Ariakit.DialogDismiss>
      </div>
      {children}
    </Ariakit.Dialog>
  );
}
