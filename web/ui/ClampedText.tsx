import { useId, useLayoutEffect, useRef, useState } from "react";

/**
 * Long text in a list (notes of 10,000 characters) is cut to a few lines, so one entry
 * cannot push the rest of the list screens away; "Show more" opens it in place. The button
 * only appears when the text is actually cut, measured again whenever the box is resized.
 */
export function ClampedText({ text, lines = 4, className = "" }: { text: string; lines?: number; className?: string }) {
  const ref = useRef<HTMLParagraphElement>(null);
  const [open, setOpen] = useState(false);
  const [cut, setCut] = useState(false);
  const id = useId();

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || open) return;
    const measure = () => setCut(el.scrollHeight > el.clientHeight + 1);
    measure();
    const watch = new ResizeObserver(measure);
    watch.observe(el);
    return () => watch.disconnect();
  }, [text, open, lines]);

  return (
    <div className="clamped">
      <p
        ref={ref}
        id={id}
        dir="auto"
        className={`${className} ${open ? "" : "clamp"}`}
        style={open ? undefined : { WebkitLineClamp: lines }}
      >
        {text}
      </p>
      {(cut || open) && (
        <button type="button" className="clamp-toggle" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
          {open ? "Show less" : "Show more"}
        </button>
      )}
    </div>
  );
}
