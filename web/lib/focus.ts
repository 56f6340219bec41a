// Where focus goes when what held it disappears (a deleted row, a row marked as read): never
// the page's body, which sends keyboard and screen-reader users back to the top
// (docs/decisions.md, "focus"). The trackers' deletes follow the same rule.

/** The row after `row` (the one before at the end of the list), taken before the row goes. */
export const neighbourOf = (row: Element | null | undefined) => (row?.nextElementSibling ?? row?.previousElementSibling ?? null) as HTMLElement | null;

/**
 * After the next paint: focus the first visible element matching `selector` inside
 * `neighbour` (when it is still on the page), else `fallback()`; a heading or region used
 * as the fallback is made focusable by script.
 */
export function focusAfterRemoval(neighbour: HTMLElement | null, selector: string, fallback: () => HTMLElement | null) {
  requestAnimationFrame(() => {
    const inNeighbour = neighbour?.isConnected ? [...neighbour.querySelectorAll<HTMLElement>(selector)].find((el) => el.offsetParent !== null) : undefined;
    const target = inNeighbour ?? fallback();
    if (!target) return;
    if (!target.matches("a[href], button, input, select, textarea, [tabindex]")) target.setAttribute("tabindex", "-1");
    target.focus();
  });
}
