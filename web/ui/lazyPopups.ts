// How Menu, Dialog, ConfirmDialog and Drawer keep @ariakit/react (~40 kB gzipped with
// floating-ui) off the first screen: they render their trigger themselves, and the ariakit half
// (web/ui/popups.tsx, one chunk) is fetched when one of them first opens, or earlier when the
// pointer or keyboard focus reaches a trigger (`prefetchPopups`), so it is usually in by the
// click. The same pattern fits any heavy part of a screen: a module-level promise, and a
// component that renders a loading state until the module is there (docs/decisions.md,
// "Weight and speed of the web app").
import { useEffect, useState } from "react";
import { toastError } from "./Toast";

type Popups = Pick<typeof import("./popups"), "MenuPopup" | "MultiSelectPopup" | "DialogPopup" | "ConfirmPopup" | "DrawerPopup">;
let loaded: Popups | null = null;
let loading: Promise<Popups> | null = null;

function loadPopups(): Promise<Popups> {
  loading ??= import("./popups").then(
    // Named, so the linter (knip) sees each export used.
    ({ MenuPopup, MultiSelectPopup, DialogPopup, ConfirmPopup, DrawerPopup }) => (loaded = { MenuPopup, MultiSelectPopup, DialogPopup, ConfirmPopup, DrawerPopup }),
    (e) => {
      loading = null; // a failed download can be tried again on the next opening
      throw e;
    },
  );
  return loading;
}

/** Starts the download early (pointer over, focus on or press of a trigger); errors surface on opening. */
function prefetchPopups() {
  loadPopups().catch(() => {});
}

/**
 * What a popup's own trigger button carries: its state for assistive technology (busy while
 * the code is still on its way after a click) and the early start of the download.
 */
export function triggerProps(open: boolean, popups: Popups | null) {
  return {
    "aria-expanded": open,
    "aria-busy": (open && !popups) || undefined,
    onPointerEnter: prefetchPopups,
    onPointerDown: prefetchPopups,
    onFocus: prefetchPopups,
  };
}

/**
 * The ariakit half once `wanted` (the popup is open): null until it has arrived, then a
 * re-render. If it cannot be fetched, an error toast, and `onFail` (close the popup again).
 */
export function usePopups(wanted: boolean, onFail?: () => void): Popups | null {
  const [, arrived] = useState<Popups | null>(loaded);
  useEffect(() => {
    if (!wanted || loaded) return;
    let live = true;
    loadPopups().then(
      (m) => live && arrived(m),
      (e) => {
        if (!live) return;
        toastError(e, "Failed to load. Check your connection and try again.");
        onFail?.();
      },
    );
    return () => {
      live = false;
    };
    // onFail is read when the download ends, not a reason to start another.
  }, [wanted]);
  return loaded;
}
