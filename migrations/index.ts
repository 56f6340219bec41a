// Every migration, in order. Imported as text so `bun build --compile` embeds them in the binary.
// Add a line per new file; never edit or reorder a landed one.
import m0001 from "./0001_init.sql" with { type: "text" };
import m0002 from "./0002_links.sql" with { type: "text" };
import m0003 from "./0003_click_indexes.sql" with { type: "text" };
import m0005 from "./0005_login_devices_topic_opens.sql" with { type: "text" };

export const migrations: { version: number; name: string; sql: string }[] = [
  { version: 1, name: "0001_init", sql: m0001 },
  { version: 2, name: "0002_links", sql: m0002 },
  { version: 3, name: "0003_click_indexes", sql: m0003 },
  { version: 5, name: "0005_login_devices_topic_opens", sql: m0005 },
];
