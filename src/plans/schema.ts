// What the plans feature shares with the web app (which may import only schema.ts files and
// src/shared/ from the server).

/** Premium's monthly price as the Pricing page shows it: shown only, as a self-hosted box has no payment processor. */
export const PREMIUM_PRICE = "$3.49";
