// What the plans feature shares with the web app (which may import only schema.ts files and
// src/shared/ from the server).
import * as v from "valibot";
import { PublicUser } from "../accounts/schema";

/** Premium's monthly price as the Pricing page shows it: shown only, as a self-hosted box has no payment processor. */
export const PREMIUM_PRICE = "$3.49";

/** POST /api/subscription/upgrade: the user on their new plan. */
export const Upgraded = v.object({ ok: v.literal(true), user: PublicUser });
