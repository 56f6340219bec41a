import { useAtom } from "jotai";
import { useEffect } from "react";
import { applyTheme, themeAtom, type Theme } from "../lib/theme";

const next: Record<Theme, Theme> = { light: "dark", dark: "system", system: "light" };
const icon: Record<Theme, string> = { light: "☀", dark: "☾", system: "◐" };
const name: Record<Theme, string> = { light: "Light", dark: "Dark", system: "System" };

/** Cycles light → dark → system; the choice is remembered across reloads. */
export function ThemeToggle() {
  const [theme, setTheme] = useAtom(themeAtom);
  useEffect(() => {
    if (theme !== "system") return;
    const mq = matchMedia("(prefers-color-scheme: dark)");
    const on = () => applyTheme("system");
    mq.addEventListener("change", on);
    return () => mq.removeEventListener("change", on);
  }, [theme]);
  return (
    <button
      type="button"
      className="btn btn-ghost btn-icon"
      aria-label={`Theme: ${name[theme]}. Switch to ${name[next[theme]]}`}
      title={`Theme: ${name[theme]}`}
      onClick={() => setTheme(next[theme])}
    >
      <span aria-hidden="true">{icon[theme]}</span>
    </button>
  );
}
