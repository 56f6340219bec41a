import * as Ariakit from "@ariakit/react";
import type { ReactNode } from "react";

type Tab = { id: string; label: ReactNode; panel: ReactNode };

/** Accessible tabs: arrow keys move between tabs, each tab labels its panel. */
export function Tabs({ tabs, label, defaultId }: { tabs: Tab[]; label: string; defaultId?: string }) {
  return (
    <Ariakit.TabProvider defaultSelectedId={defaultId ?? tabs[0]?.id}>
      <Ariakit.TabList className="tabs" aria-label={label}>
        {tabs.map((t) => (
          <Ariakit.Tab key={t.id} id={t.id} className="tab">
            {t.label}
          </Ariakit.Tab>
        ))}
      </Ariakit.TabList>
      {tabs.map((t) => (
        <Ariakit.TabPanel key={t.id} tabId={t.id} className="tab-panel">
          {t.panel}
        </Ariakit.TabPanel>
      ))}
    </Ariakit.TabProvider>
  );
}
