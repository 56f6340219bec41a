import { atom, getDefaultStore, useAtom } from "jotai";
import { useEffect, useRef, useState } from "react";

export type ToastInput = { title: string; description?: string; variant?: "default" | "destructive" };
type ToastState = ToastInput & { id: number };

// PRODUCT.md: one toast at a time, a new one replaces it; 5000 ms; swipe right 50 px; F8.
export const TOAST_DURATION_MS = 5000;
const SWIPE_THRESHOLD_PX = 50;

const toastAtom = atom<ToastState | null>(null);
let nextId = 1;

/** Show a toast from anywhere (event handlers, mutations). */
export function toast(t: ToastInput) {
  getDefaultStore().set(toastAtom, { ...t, id: nextId++ });
}

/** The destructive 'Error' toast of spec §8 with the server's message or a fallback. */
export function toastError(e: unknown, fallback: string) {
  const message = e instanceof Error && e.message ? e.message : fallback;
  toast({ title: "Error", description: message, variant: "destructive" });
}

export function Toaster() {
  const [current, setCurrent] = useAtom(toastAtom);
  const region = useRef<HTMLElement>(null);
  const [paused, setPaused] = useState(false);
  const [dx, setDx] = useState(0);
  const start = useRef<number | null>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "F8") {
        e.preventDefault();
        region.current?.focus();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  useEffect(() => {
    setDx(0);
    if (!current || paused) return;
    const t = setTimeout(() => setCurrent(null), TOAST_DURATION_MS);
    return () => clearTimeout(t);
  }, [current, paused, setCurrent]);

  const destructive = current?.variant === "destructive";
  return (
    <section ref={region} tabIndex={-1} aria-label="Notifications (F8)" className="toast-region">
      {/* Both live regions always exist so screen readers announce a toast the moment it appears. */}
      <div role="status" aria-live="polite">{current && !destructive && render()}</div>
      <div role="alert" aria-live="assertive">{current && destructive && render()}</div>
    </section>
  );

  function render() {
    if (!current) return null;
    return (
      <div
        key={current.id}
        className={`toast ${destructive ? "toast-destructive" : ""}`}
        style={{ transform: dx ? `translateX(${dx}px)` : undefined }}
        onMouseEnter={() => setPaused(true)}
        onMouseLeave={() => setPaused(false)}
        onFocus={() => setPaused(true)}
        onBlur={() => setPaused(false)}
        onPointerDown={(e) => (start.current = e.clientX)}
        onPointerMove={(e) => start.current !== null && setDx(Math.max(0, e.clientX - start.current))}
        onPointerUp={() => {
          if (dx > SWIPE_THRESHOLD_PX) setCurrent(null);
          else setDx(0);
          start.current = null;
        }}
        onPointerCancel={() => {
          start.current = null;
          setDx(0);
        }}
      >
        <div className="toast-body">
          <p className="toast-title">{current.title}</p>
          {current.description && <p className="toast-desc">{current.description}</p>}
        </div>
        <button type="button" className="btn btn-ghost btn-icon" aria-label="Dismiss notification" onClick={() => setCurrent(null)}>✕</button>
      </div>
    );
  }
}
