import { atom } from "jotai";

export type Theme = "light" | "dark" | "system";
const KEY = "theme";

function read(): Theme {
  try {
    const t = localStorage.getItem(KEY);
    return t === "light" || t === "dark" ? t : "system";
  } catch {
    return "system";
  }
}

export function applyTheme(t: Theme) {
  const dark = t === "dark" || (t === "system" && matchMedia("(prefers-color-scheme: dark)").matches);
  document.documentElement.classList.toggle("dark", dark);
}

const base = atom<Theme>(read());
/** Remembered in localStorage; index.html applies it before first paint. */
export const themeAtom = atom(
  (get) => get(base),
  (_get, set, t: Theme) => {
    set(base, t);
    try {
      if (t === "system") localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, t);
    } catch {
      /* storage disabled: the choice lasts for this page only */
    }
    applyTheme(t);
  },
);
