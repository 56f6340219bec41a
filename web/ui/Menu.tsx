import * as Ariakit from "@ariakit/react";
import type { ReactNode } from "react";
import { useLocation } from "wouter";

type Item = { label: ReactNode; onSelect?: () => void; href?: string; danger?: boolean; key?: string };

/** A button that opens a keyboard-navigable menu of actions or links. */
export function Menu({ label, button, items, className = "" }: { label: string; button: ReactNode; items: Item[]; className?: string }) {
  const [, navigate] = useLocation();
  return (
    <Ariakit.MenuProvider>
      <Ariakit.MenuButton className={`btn btn-ghost btn-md ${className}`} aria-label={label}>
        {button}
      </Ariakit.MenuButton>
      {/* unmountOnHide: a closed menu renders nothing. Each dashboard row has one (the phone
          layout's ⋯ menu), and 20 hidden portals with their items cost most of the list's
          first render (docs/performance.md, "Web app"). */}
      <Ariakit.Menu gutter={6} className="menu" portal unmountOnHide>
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
    </Ariakit.MenuProvider>
  );
}
