import { useEffect, useState } from "react";

/** The value once it has stopped changing for `ms` (a search box's text, sent when typing pauses). */
export function useSettled<T>(value: T, ms: number) {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}
