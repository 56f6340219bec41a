// Every documented operation of the API, feature by feature. A feature declares its
// operations in its routes.ts (see src/shared/apiOperations.ts) and is listed here once.
import { ApiKeyView, CreatedApiKey } from "../apikeys/schema";
import { apiKeyOperations } from "../apikeys/routes";
import { qrStyleOperations } from "../qrstyles/routes";
import { SavedQrStyle } from "../qrstyles/schema";
import { accountOperations } from "../accounts/routes";
import { PublicUser } from "../accounts/schema";
import { AnalyticsReport, ClickView } from "../analytics/schema";
import { healthOperations } from "../health/routes";
import { inviteOperations } from "../invites/routes";
import { linkOperations } from "../links/routes";
import { smartOperations, utmTemplateOperations } from "../smart/routes";
import { bulkLinkOperations } from "../links/bulkRoutes";
import { tagOperations } from "../tags/routes";
import { notificationOperations } from "../notifications/routes";
import { LinkListItem, LinkView } from "../links/schema";
import { SimulateBody, SmartInput, SmartView, UtmTemplateBody } from "../smart/schema";
import { Notification } from "../notifications/schema";
import { planOperations } from "../plans/routes";
import { redirectOperations } from "../redirects/routes";
import { titleOperations } from "../titles/routes";
import { Title } from "../titles/schema";
import { topicOperations } from "../topics/routes";
import { webhookOperations } from "../webhooks/routes";
import { eventOperations } from "../events/routes";
import { publicStatsOperations } from "../publicstats/routes";
import { Topic } from "../topics/schema";
import type { Definitions } from "./document";
import { CreateApiKeyBody } from "../apikeys/schema";
import { BulkCreateBody, CreateLinkBody, EditLinkBody, EditMainLinkBody, ImportLinksBody, PatchLinkBody, PatchMainLinkBody } from "../links/schema";
import { CreateTagBody, EditTagBody, TagView } from "../tags/schema";
import { SaveQrStyleBody } from "../qrstyles/schema";
import { PublicStatsView } from "../publicstats/schema";
import { CreateTitleBody, UpdateTitleBody } from "../titles/schema";
import { CreateTopicBody, ReorderBody, UpdateTopicBody } from "../topics/schema";
import { CreateWebhookBody, UpdateWebhookBody } from "../webhooks/schema";
import { LoginBody, RegisterBody } from "../accounts/schema";
import * as v from "valibot";
import { defineOperations, type Operation } from "../shared/apiOperations";

/** The outline of an OpenAPI document (its full schema is the OpenAPI specification's own). */
const OpenApiDocument = v.looseObject({
  openapi: v.string(),
  info: v.looseObject({ title: v.string(), version: v.string() }),
  paths: v.record(v.string(), v.unknown()),
});

// The reference itself (src/openapi/routes.ts).
const openApiOperations = defineOperations({ tag: "Reference", auth: "none" }, [
  {
    method: "GET",
    path: "/api/openapi.json",
    summary: "This document",
    description: "The OpenAPI 3.1 description of every /api route, built from the routes' own schemas.",
    responses: { 200: { description: "The OpenAPI document", schema: OpenApiDocument } },
  },
  {
    method: "GET",
    path: "/api/docs",
    summary: "The API reference page",
    description: "This document rendered as a page, with a console to try each operation.",
    responses: { 200: { description: "The web app's page", media: { type: "text/html" } } },
  },
]);

export const OPERATIONS: Operation[] = [
  ...healthOperations,
  ...accountOperations,
  ...planOperations,
  ...linkOperations("main"),
  ...bulkLinkOperations,
  ...linkOperations("brand"),
  ...tagOperations,
  ...smartOperations("main"),
  ...smartOperations("brand"),
  ...utmTemplateOperations,
  ...redirectOperations,
  ...topicOperations,
  ...titleOperations,
  ...inviteOperations,
  ...webhookOperations,
  ...eventOperations,
  ...publicStatsOperations,
  ...notificationOperations,
  ...apiKeyOperations,
  ...qrStyleOperations,
  ...openApiOperations,
];

/**
 * Request bodies named in the document (components), so a generated client has one
 * CreateLinkBody type for both trackers and for each item of a bulk create.
 */
const NAMED_REQUESTS: Definitions = {
  RegisterBody,
  LoginBody,
  CreateLinkBody,
  EditMainLinkBody,
  EditLinkBody,
  PatchMainLinkBody,
  PatchLinkBody,
  BulkCreateBody,
  ImportLinksBody,
  CreateTagBody,
  EditTagBody,
  CreateTopicBody,
  UpdateTopicBody,
  ReorderBody,
  CreateTitleBody,
  UpdateTitleBody,
  CreateWebhookBody,
  UpdateWebhookBody,
  CreateApiKeyBody,
  SaveQrStyleBody,
  SmartSettingsBody: SmartInput,
  SimulateBody,
  UtmTemplateBody,
};
export const REQUEST_NAMES = Object.keys(NAMED_REQUESTS);

/** Response shapes named in the document (components), so clients see one LinkView, not copies. */
export const NAMED_SCHEMAS: Definitions = {
  ...NAMED_REQUESTS,
  PublicUser,
  LinkView,
  LinkListItem,
  SmartView,
  TagView,
  PublicStatsView,
  AnalyticsReport,
  ClickView,
  Topic,
  Title,
  Notification,
  ApiKeyView,
  CreatedApiKey,
  SavedQrStyle,
};
