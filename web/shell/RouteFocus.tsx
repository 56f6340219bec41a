import { useEffect, useRef } from "react";
import { useLocation } from "wouter";

/** The page's heading, else its main region: where a new screen's reading starts. */
function target(): HTMLElement | null {
  return document.querySelector<HTMLElement>("main h1") ?? document.querySelector<HTMLElement>("h1") ?? document.querySelector<HTMLElement>("main");
}

function focusStart(el: HTMLElement) {
  // Headings and main are not focusable by Tab; -1 lets a script (and the skip link) land there.
  if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "-1");
  el.focus({ preventScroll: false });
}

/**
 * Keyboard and screen-reader users start each screen at its top (issue 25): a skip link past
 * the header, and on moving to another screen focus goes to its h1 rather than staying on the
 * body (or on a link of the screen left behind). The first load is left to the browser, and
 * a screen that already put focus inside its own content keeps it.
 */
export function RouteFocus() {
  const [path] = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    let frames = 0;
    let raf = 0;
    let later: ReturnType<typeof setTimeout> | undefined;
    // Lazy screens arrive a little later: wait (at most ~2 s) for the new heading.
    // What had focus when the address changed: the link just followed, often on the old screen.
    const start = document.activeElement;
    // The screen left behind, to tell it from the new one. Followed from the Tools menu, focus
    // was in the menu, not in the old screen, so the old screen's heading looked like the new
    // one's and got focus just before the lazy screen replaced it (focus then fell to the body).
    const oldMain = document.querySelector("main");
    const oldHeading = target()?.textContent ?? null;
    const tick = () => {
      const active = document.activeElement;
      const main = document.querySelector("main");
      // The old screen is still shown (a lazy screen is on its way): wait.
      if (start && start !== document.body && start.isConnected && main?.contains(start)) {
        if (++frames < 120) raf = requestAnimationFrame(tick);
        return;
      }
      // Still the old screen's main and heading (a screen that keeps both ends the wait after ~2 s).
      if (main && main === oldMain && target()?.textContent === oldHeading && frames < 120) {
        frames++;
        raf = requestAnimationFrame(tick);
        return;
      }
      if (active && active !== start && active !== document.body && main?.contains(active)) return;
      const el = target();
      if (el && !el.closest("[aria-busy=true]")) {
        focusStart(el);
        // A menu that led here hands focus back to its button as it closes, which can come
        // after this: once more, a moment later, if focus was taken back out of the screen.
        later = setTimeout(() => {
          const now = document.activeElement;
          if (el.isConnected && now !== el && !document.querySelector("main")?.contains(now) && !now?.closest("[role=dialog], [role=menu]")) focusStart(el);
        }, 300);
        return;
      }
      if (++frames < 120) raf = requestAnimationFrame(tick);
    };
    raf = requestAnimationFrame(tick);
    return () => {
      cancelAnimationFrame(raf);
      clearTimeout(later);
    };
  }, [path]);
  return null;
}

/** The first thing Tab reaches (inside each screen's header landmark): straight to its content, main#main. */
export function SkipLink() {
  return (
    <a
      href="#main"
      className="skip-link"
      onClick={(e) => {
        const el = document.querySelector<HTMLElement>("main");
        if (!el) return;
        e.preventDefault();
        focusStart(el);
      }}
    >
      Skip to content
    </a>
  );
}
