import { TrackerPage } from "../links/TrackerPage";

/** /pic-drift-link-tracker: the brand tracker, titled '{BRAND_NAME} Link Tracker'. */
export function BrandTrackerPage() {
  return <TrackerPage tracker="brand" />;
}
