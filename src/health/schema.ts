// The contract of GET /api/config, shared with the web app (which may import only schema.ts
// files and src/shared/ from the server). Picked from Config so a setting's type is written once.
import type { Config } from "../config";

/** What the web app needs to know about this instance; nothing secret. */
export type PublicConfig = Pick<
  Config,
  | "appName"
  | "brandName"
  | "publicUrl"
  | "shortDomain"
  | "brandDomain"
  | "shortBaseUrl"
  | "brandBaseUrl"
  | "freeTopicLimit"
  | "allowSelfUpgrade"
  | "registration"
  | "operatorName"
  | "operatorAddress"
> & { version: string };
