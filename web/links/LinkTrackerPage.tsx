import { TrackerPage } from "./TrackerPage";

/** /link-tracker */
export function LinkTrackerPage() {
  return <TrackerPage tracker="main" />;
}
