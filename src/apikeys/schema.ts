// API keys (issue 14): the create form and route share this schema; isomorphic (the web
// settings page imports it), so nothing server-only belongs here.
import * as v from "valibot";
import { noControlChars } from "../shared/text";

export const KEY_NAME_MAX = 50;
export const SCOPES = ["read", "read-write"] as const;
export const AREAS = ["links", "topics"] as const;
export type Scope = (typeof SCOPES)[number];
export type Area = (typeof AREAS)[number];

export const MSG = {
  name: "Name is required",
  nameLength: "Name must be at most 50 characters",
  scope: "Scope must be read or read-write",
  only: "Limit must be links or topics, or left empty for both",
} as const;

export const CreateApiKeyBody = v.object({
  name: v.pipe(v.optional(v.string("Name must be text"), ""), v.trim(), v.nonEmpty(MSG.name), noControlChars("Name"), v.maxLength(KEY_NAME_MAX, MSG.nameLength)),
  // Through optional first, so a missing scope gets the same message as a wrong one.
  scope: v.pipe(v.optional(v.string(MSG.scope), ""), v.picklist(SCOPES, MSG.scope)),
  // Empty or null: every area a key may reach (links, topics, notifications).
  only: v.pipe(
    v.optional(v.nullable(v.string(MSG.only)), ""),
    v.transform((s) => s ?? ""),
    v.check((s) => s === "" || (AREAS as readonly string[]).includes(s), MSG.only),
    v.transform((s) => (s === "" ? null : (s as Area))),
  ),
});

/** A key as listed: never the secret, which exists only in the create response. */
export const ApiKeyView = v.object({
  id: v.number(),
  name: v.string(),
  /** The key's first characters ('tl_' + 8), to tell keys apart and to revoke from the CLI. */
  prefix: v.string(),
  scope: v.picklist(SCOPES),
  /** The one area the key is limited to, or null for every area. */
  only: v.nullable(v.picklist(AREAS)),
  createdAt: v.string(),
  lastUsedAt: v.nullable(v.string()),
});
export type ApiKeyView = v.InferOutput<typeof ApiKeyView>;

/** The create response: the one time the full key is shown. */
export const CreatedApiKey = v.object({ ...ApiKeyView.entries, key: v.string() });
export type CreatedApiKey = v.InferOutput<typeof CreatedApiKey>;
