// Every migration, in order. Imported as text so `bun build --compile` embeds them in the binary.
// Add a line per new file, and its checksum below; never edit or reorder a landed one.
import m0001 from "./0001_init.sql" with { type: "text" };
import m0002 from "./0002_links.sql" with { type: "text" };
import m0003 from "./0003_click_indexes.sql" with { type: "text" };
import m0004 from "./0004_click_writer.sql" with { type: "text" };
import m0005 from "./0005_login_devices_topic_opens.sql" with { type: "text" };
import m0006 from "./0006_title_slugs.sql" with { type: "text" };
import m0007 from "./0007_api_keys.sql" with { type: "text" };
import m0008 from "./0008_click_fold.sql" with { type: "text" };
import m0009 from "./0009_link_notify.sql" with { type: "text" };
import m0010 from "./0010_attempt_counts.sql" with { type: "text" };
import m0011 from "./0011_click_link_index.sql" with { type: "text" };
import m0012 from "./0012_click_rollups.sql" with { type: "text" };
import m0013 from "./0013_lists.sql" with { type: "text" };
import m0014 from "./0014_link_changes.sql" with { type: "text" };
import m0015 from "./0015_events.sql" with { type: "text" };
import m0016 from "./0016_notification_count.sql" with { type: "text" };
import m0017 from "./0017_link_external_id.sql" with { type: "text" };
import m0018 from "./0018_tags.sql" with { type: "text" };
import m0019 from "./0019_imported_clicks.sql" with { type: "text" };
import m0020 from "./0020_public_stats.sql" with { type: "text" };
import m0021 from "./0021_qr_styles.sql" with { type: "text" };
import m0022 from "./0022_smart_links.sql" with { type: "text" };
import m0023 from "./0023_clicks_reset.sql" with { type: "text" };
import m0024 from "./0024_search_prefix.sql" with { type: "text" };
import m0025 from "./0025_webhook_bodies.sql" with { type: "text" };
import m0026 from "./0026_codes_per_tracker.sql" with { type: "text" };
import m0027 from "./0027_links_owner_by_id.sql" with { type: "text" };
import m0028 from "./0028_link_notify_columns.sql" with { type: "text" };
import m0029 from "./0029_smart_links_index.sql" with { type: "text" };

export const migrations: { version: number; name: string; sql: string }[] = [
  { version: 1, name: "0001_init", sql: m0001 },
  { version: 2, name: "0002_links", sql: m0002 },
  { version: 3, name: "0003_click_indexes", sql: m0003 },
  { version: 4, name: "0004_click_writer", sql: m0004 },
  { version: 5, name: "0005_login_devices_topic_opens", sql: m0005 },
  { version: 6, name: "0006_title_slugs", sql: m0006 },
  { version: 7, name: "0007_api_keys", sql: m0007 },
  { version: 8, name: "0008_click_fold", sql: m0008 },
  { version: 9, name: "0009_link_notify", sql: m0009 },
  { version: 10, name: "0010_attempt_counts", sql: m0010 },
  { version: 11, name: "0011_click_link_index", sql: m0011 },
  { version: 12, name: "0012_click_rollups", sql: m0012 },
  { version: 13, name: "0013_lists", sql: m0013 },
  { version: 14, name: "0014_link_changes", sql: m0014 },
  { version: 15, name: "0015_events", sql: m0015 },
  { version: 16, name: "0016_notification_count", sql: m0016 },
  { version: 17, name: "0017_link_external_id", sql: m0017 },
  { version: 18, name: "0018_tags", sql: m0018 },
  { version: 19, name: "0019_imported_clicks", sql: m0019 },
  { version: 20, name: "0020_public_stats", sql: m0020 },
  { version: 21, name: "0021_qr_styles", sql: m0021 },
  { version: 22, name: "0022_smart_links", sql: m0022 },
  { version: 23, name: "0023_clicks_reset", sql: m0023 },
  { version: 24, name: "0024_search_prefix", sql: m0024 },
  { version: 25, name: "0025_webhook_bodies", sql: m0025 },
  { version: 26, name: "0026_codes_per_tracker", sql: m0026 },
  { version: 27, name: "0027_links_owner_by_id", sql: m0027 },
  { version: 28, name: "0028_link_notify_columns", sql: m0028 },
  { version: 29, name: "0029_smart_links_index", sql: m0029 },
];

/**
 * sha256 (hex) of each landed migration file, taken when it landed. A landed migration is
 * frozen: src/db/migrate.test.ts fails when a file no longer matches its line here, and for a
 * new file prints the line to add. (0003 changed once after landing, before this list existed:
 * its line is the file as it stands.) The database records the same checksum per migration
 * applied, and start-up refuses a database whose record differs from the binary's file.
 */
export const frozenChecksums: Record<string, string> = {
  "0001_init": "5f71c69d41a8cc02dc2541561340556bf3e2525c686a975237b9ece5b79d62bd",
  "0002_links": "b9372c4fc904f298801eb49cabd44c6c38a539e9ca9573f830b9b1089a179450",
  "0003_click_indexes": "fba4f22776f78a8ebf91a543a9a8a2b8a3665a5a1f3f6876d2b517d564f753e4",
  "0004_click_writer": "30a005ad3a5d6976eac50d54d5d73535241b2a32bb95ce43f5f637792f3cbab4",
  "0005_login_devices_topic_opens": "edb0321311e52a04e377d81e2ec921810e66d5a8c20d5d0129263eae3d47f246",
  "0006_title_slugs": "324b84a1d72f8f485407670f31895d4595f7b77528fdcc9e97726e3bf5f9f8bb",
  "0007_api_keys": "d2420a2ad49b20b5f59a01343c92c942bd589408c67f9b0bb419fc5eb062f171",
  "0008_click_fold": "4228e1c7ac4a516d7310b5e8d8220fbccc1f97904b4f6f7a032c603bda783180",
  "0009_link_notify": "64ad4a373b7c1561740ba018ee49b6ab25678bc00993ccf94bfb9cb6b8e81b80",
  "0010_attempt_counts": "eaa3f5fc42a8df56401c8dfd1b1db81686aabdf01063fa201691ddc06d6b3b5b",
  "0011_click_link_index": "1b9c77867ba19a725ec15d73438237a712402b5b26a2e9bb35cd4d2ee05f7583",
  "0012_click_rollups": "e84dfc7d4a666595f7f5381f0ef20808b4d04aee22eebeaec966a0bbf721b8a6",
  "0013_lists": "77a8a622c59b535243a46369afaa89e0c0584f9a22baaff370204ea9cefee2db",
  "0014_link_changes": "fca0fc6d0c979a886db69d12dd40a177e402c5b7f6e5d2e51235f11ed15cac2c",
  "0015_events": "c888f7188add8665f38aa3f5cc770812a1fcdeb0e85120b5fa79cf3fd14b4c1f",
  "0016_notification_count": "9f737e3becbc3700266f2a82c155a95e7adee386cab8678375518bcfd8bfce43",
  "0017_link_external_id": "da3236b5e026821fb1cc534a40ffad156105376254c943430bc73990f1c5aec6",
  "0018_tags": "10b0c35bf9aae2851be75c3268683398860bf2525b34b11bf433df6118d3d403",
  "0019_imported_clicks": "bfe20bbcf7c4667132390ca91886b3100e0f1f69ed4c9396436c277666d7f75e",
  "0020_public_stats": "7041b617063401b16c049275a98f114b70f543851594292cbdb167d7dbb401bc",
  "0021_qr_styles": "ce7a234ef224986a1fe493ec74542554f1bd3bd4f0224986ed66e77e457cfcdc",
  "0022_smart_links": "e3dcf9e7b7ef05ae579667adc5ac0a3a2fc9638fe6d580e09e0e3a2aa73e4884",
  "0023_clicks_reset": "59948ac5214c0d4316610ff90fac98f79691023aeceff50c89df54bbd91cb7e6",
  "0024_search_prefix": "34dbb525febb6e0078bd353b2b8f2bc650c5efbb4e51c0bb6e65879e6e92d91c",
  "0025_webhook_bodies": "39249fcf0d5384e9c03ac9c2bb18e5ecccb45bc46da5820f952494ad8b767cf9",
  "0026_codes_per_tracker": "14f1f49e2685465decf4cec186e5cdb1b78ef929a7d485f846317ae1cda7d13f",
  "0027_links_owner_by_id": "b98756aede029c381e0b8d6f702ac31a9d9647412180fbda1547160fb974529c",
  "0028_link_notify_columns": "5483cfeefa077840ec2a3b4788c1570b9e58d114d0979543b7da60e295a5ccb8",
  "0029_smart_links_index": "e7739b3a55734558e2f36d2a1909927e0c514781ec1ffe6947e8a2be762fd153",
};
