// The PostgreSQL migrations, in order. Imported as text so `bun build --compile` embeds them in
// the binary. Each carries the number of the SQLite migration whose schema it reaches (the first
// one reaches 0007 in one step), so a schema version means the same tables on both backends; a
// SQLite migration after 0007 gets its twin here (src/db/pg.test.ts fails until it has one).
// Add a line per new file, and its checksum below; never edit or reorder a landed one.
import p0007 from "./0007_baseline.sql" with { type: "text" };
import p0008 from "./0008_click_fold.sql" with { type: "text" };
import p0009 from "./0009_link_notify.sql" with { type: "text" };
import p0010 from "./0010_attempt_counts.sql" with { type: "text" };
import p0011 from "./0011_click_link_index.sql" with { type: "text" };
import p0012 from "./0012_click_rollups.sql" with { type: "text" };
import p0013 from "./0013_lists.sql" with { type: "text" };
import p0014 from "./0014_link_changes.sql" with { type: "text" };
import p0015 from "./0015_events.sql" with { type: "text" };
import p0016 from "./0016_notification_count.sql" with { type: "text" };
import p0017 from "./0017_link_external_id.sql" with { type: "text" };
import p0018 from "./0018_tags.sql" with { type: "text" };
import p0019 from "./0019_imported_clicks.sql" with { type: "text" };
import p0020 from "./0020_public_stats.sql" with { type: "text" };
import p0021 from "./0021_qr_styles.sql" with { type: "text" };
import p0022 from "./0022_smart_links.sql" with { type: "text" };
import p0023 from "./0023_clicks_reset.sql" with { type: "text" };
import p0024 from "./0024_search_prefix.sql" with { type: "text" };
import p0025 from "./0025_webhook_bodies.sql" with { type: "text" };
import p0026 from "./0026_codes_per_tracker.sql" with { type: "text" };
import p0027 from "./0027_links_owner_by_id.sql" with { type: "text" };
import p0028 from "./0028_link_notify_columns.sql" with { type: "text" };
import p0029 from "./0029_smart_links_index.sql" with { type: "text" };

export const pgMigrations: { version: number; name: string; sql: string }[] = [
  { version: 7, name: "0007_baseline", sql: p0007 },
  { version: 8, name: "0008_click_fold", sql: p0008 },
  { version: 9, name: "0009_link_notify", sql: p0009 },
  { version: 10, name: "0010_attempt_counts", sql: p0010 },
  { version: 11, name: "0011_click_link_index", sql: p0011 },
  { version: 12, name: "0012_click_rollups", sql: p0012 },
  { version: 13, name: "0013_lists", sql: p0013 },
  { version: 14, name: "0014_link_changes", sql: p0014 },
  { version: 15, name: "0015_events", sql: p0015 },
  { version: 16, name: "0016_notification_count", sql: p0016 },
  { version: 17, name: "0017_link_external_id", sql: p0017 },
  { version: 18, name: "0018_tags", sql: p0018 },
  { version: 19, name: "0019_imported_clicks", sql: p0019 },
  { version: 20, name: "0020_public_stats", sql: p0020 },
  { version: 21, name: "0021_qr_styles", sql: p0021 },
  { version: 22, name: "0022_smart_links", sql: p0022 },
  { version: 23, name: "0023_clicks_reset", sql: p0023 },
  { version: 24, name: "0024_search_prefix", sql: p0024 },
  { version: 25, name: "0025_webhook_bodies", sql: p0025 },
  { version: 26, name: "0026_codes_per_tracker", sql: p0026 },
  { version: 27, name: "0027_links_owner_by_id", sql: p0027 },
  { version: 28, name: "0028_link_notify_columns", sql: p0028 },
  { version: 29, name: "0029_smart_links_index", sql: p0029 },
];

/** sha256 (hex) of each landed file, as migrations/index.ts keeps for SQLite (same rules). */
export const pgFrozenChecksums: Record<string, string> = {
  "0007_baseline": "45242f192a39faf4ac581627f0ab82cc12499d76a1bc31182b50752cf8893339",
  "0008_click_fold": "95f29e46e87bb5785fcf07276c5440b291715014fdcf8d23d14d2f110395165e",
  "0009_link_notify": "b6e3d294da82904b37fd1b3c294cea980ef53a4fc4deb4a5aaa34ca477da6b6e",
  "0010_attempt_counts": "247adead082ab984be7aa9ac5b9194952cef008b63c889c2d243f03eece97859",
  "0011_click_link_index": "2866138201df4c3c6ca9a81d6c01f384df84cbe989e0bcb1073108366e99f992",
  "0012_click_rollups": "a0640db1cba0801dfbf6c20f55600d93bcedf9e82bf517b6bf6cfc9195d44bce",
  "0013_lists": "773203ec0d2d66f7953b59862fa6de2e235402f69d78f69303de395579450f9a",
  "0014_link_changes": "7f2dacc57c5f2f6d509fbb30f4cfbba642e6e4419bf51b4586e82e562cac5bb1",
  "0015_events": "53c131b3c8c93de8c0cd0a49541eebed15af007288fdd933ae0b98b68e0e99ed",
  "0016_notification_count": "66e988133426a212940ef655c14d3b8773d50bb8b9a506e5ea6865d675f521ef",
  "0017_link_external_id": "3ff77fb304c17ee033846dea62d9dbbfbb20d0ccd13ca639d54b29d63bf9d7d9",
  "0018_tags": "fae5bfe412620cb7d1afa5bb0b1d5d9b204803c4c7dab076b5d9f3b138bbf458",
  "0019_imported_clicks": "c915ee46b71bf6f79b6c3684fa80c8d4f767468e078264acd1e5e27c3b1bd3ff",
  "0020_public_stats": "667da73b453f036bec0a0056b215d2dc9c54c52c85936f936ebf77c39421ed03",
  "0021_qr_styles": "52096eff2a38265c79c38638c8ef2e9ef67eea3255581fdfcd3b67d3464f5e78",
  "0022_smart_links": "71744a856da122cdedec5579feb970d4942fc0431048c7ba7595f8b35a273db1",
  "0023_clicks_reset": "fba318e26877295fe565c3d2072aab6626fbb9150b6a5ba9180663a328e8894f",
  "0024_search_prefix": "992a197ab38aeb8804cdd7b93511616f07dc0acc59a9e021e1417ad755e893a1",
  "0025_webhook_bodies": "a4c77fbfcf96b7ce556ddc1c87ab386647aa2f3cd449631594b96f7d97b52e88",
  "0026_codes_per_tracker": "59c99b384db553a0a034e0068bfaca23d6dbf59ffd4089c632eea87ba4b1ec55",
  "0027_links_owner_by_id": "512abace63a2b14f6bf0cddf945bf360b8573bdda2ed1865b582d52ebdbcecd6",
  "0028_link_notify_columns": "9d93de5b3ce09aeedc46e9adeab2c41a61071cc9d0b4a2caa61621b49a3b065b",
  "0029_smart_links_index": "e7739b3a55734558e2f36d2a1909927e0c514781ec1ffe6947e8a2be762fd153",
};
