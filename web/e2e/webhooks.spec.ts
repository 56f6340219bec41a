// Settings → Webhooks (issue 26): add an endpoint, its secret shown once, its delivery log with
// Redeliver, off and on, delete; the section at 360 px, light and dark, axe clean.
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { registerViaApi } from "./helpers";

test("add a webhook, see the secret once, read its delivery log, redeliver, turn it off, delete it", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/settings/webhooks");
  const section = page.getByRole("region", { name: "Webhooks" });
  // The address is refused as written before anything is stored.
  await section.getByLabel("Endpoint URL").fill("ftp://hooks.example.com/in");
  await section.getByRole("button", { name: "Add webhook" }).click();
  await expect(section.getByText("Enter a full URL starting with https:// or http://")).toBeVisible();
  // A local address (this server does not allow them) is refused when added, under the field,
  // rather than stored to fail at every delivery.
  await section.getByLabel("Endpoint URL").fill("http://localhost:9/in");
  await section.getByRole("button", { name: "Add webhook" }).click();
  await expect(section.getByText(/^This server's webhooks may not call a private or local address/)).toBeVisible();
  await expect(page.getByText("You have no webhooks yet.")).toBeVisible();
  await section.getByLabel("Endpoint URL").fill("https://hooks.example.invalid/in");
  await section.getByLabel("Link created").check();
  await section.getByLabel("Clicks recorded").uncheck();
  await section.getByRole("button", { name: "Add webhook" }).click();
  const dialog = page.getByRole("dialog", { name: "Webhook added" });
  const secret = await dialog.getByLabel("Signing secret").inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  await dialog.getByRole("button", { name: "Done" }).click();
  const card = page.getByRole("list", { name: "Webhooks" }).getByRole("listitem").filter({ hasText: "https://hooks.example.invalid/in" });
  await expect(card.getByText("On", { exact: true })).toBeVisible();
  await expect(card.getByText(`Secret …${secret.slice(-4)}`)).toBeVisible();
  await expect(page.getByText(secret)).toHaveCount(0);

  // A change makes a delivery; the receiver does not exist, so the log shows the failure.
  expect((await page.request.post("/api/links", { data: { originalUrl: "https://example.com/hooked", title: "Hooked" } })).status()).toBe(201);
  await card.getByRole("button", { name: "Deliveries to https://hooks.example.invalid/in", exact: true }).click();
  const log = card.getByRole("list", { name: "Deliveries to https://hooks.example.invalid/in" });
  await expect(log.getByText("link.created")).toBeVisible();
  await log.getByRole("button", { name: /^Redeliver evt_\d+, delivery \d+, to https:\/\/hooks\.example\.invalid\/in$/ }).first().click();
  await expect(page.getByText("Delivery queued again")).toBeVisible();

  await card.getByRole("button", { name: "Turn off webhook https://hooks.example.invalid/in" }).click();
  await expect(card.getByText("Off", { exact: true })).toBeVisible();
  await card.getByRole("button", { name: "Delete webhook https://hooks.example.invalid/in" }).click();
  await page.getByRole("alertdialog", { name: "Delete webhook" }).getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("You have no webhooks yet.")).toBeVisible();
});

test("by keyboard, focus never falls to the page: after the secret's dialog, a Redeliver and a Delete", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/settings/webhooks");
  const section = page.getByRole("region", { name: "Webhooks" });
  const url = section.getByLabel("Endpoint URL");
  await url.fill("https://hooks.example.invalid/keys");
  await url.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Webhook added" });
  await dialog.getByRole("button", { name: "Done" }).press("Enter");
  // The form was disabled while the endpoint was added: focus comes back to its first field.
  await expect(url).toBeFocused();

  expect((await page.request.post("/api/links", { data: { originalUrl: "https://example.com/keys", title: "Keys" } })).status()).toBe(201);
  const card = page.getByRole("list", { name: "Webhooks" }).getByRole("listitem").filter({ hasText: "https://hooks.example.invalid/keys" });
  await card.getByRole("button", { name: "Deliveries to https://hooks.example.invalid/keys", exact: true }).press("Enter");
  const log = card.getByRole("list", { name: "Deliveries to https://hooks.example.invalid/keys" });
  const redeliver = log.getByRole("button", { name: /^Redeliver evt_\d+, delivery \d+, to / }).first();
  await redeliver.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText("Delivery queued again")).toBeVisible();
  // The pressed button keeps focus (a disabled one would have dropped it to the body).
  await expect(page.locator(":focus")).toHaveAccessibleName(/^Redeliver evt_\d+, delivery \d+, to https:\/\/hooks\.example\.invalid\/keys$/);

  await card.getByRole("button", { name: "Delete webhook https://hooks.example.invalid/keys" }).press("Enter");
  await page.getByRole("alertdialog", { name: "Delete webhook" }).getByRole("button", { name: "Delete" }).press("Enter");
  await expect(page.getByText("You have no webhooks yet.")).toBeVisible();
  // Its card went with it: focus moves to the form rather than the body.
  await expect(url).toBeFocused();
});

test("every button says which webhook and which delivery it acts on: no two share a name", async ({ page }) => {
  await registerViaApi(page.request);
  for (const url of ["https://one.example.invalid/in", "https://two.example.invalid/in"]) {
    expect((await page.request.post("/api/webhooks", { data: { url, events: ["link.created"] } })).status()).toBe(201);
  }
  expect((await page.request.post("/api/links", { data: { originalUrl: "https://example.com/named", title: "Named" } })).status()).toBe(201);
  await page.goto("/settings/webhooks");
  const hooks = page.getByRole("list", { name: "Webhooks" });
  await expect(hooks.getByRole("listitem")).toHaveCount(2);
  const names = () => hooks.getByRole("button").evaluateAll((buttons) => buttons.map((b) => b.getAttribute("aria-label") ?? b.textContent ?? ""));
  // The same event redelivered: two deliveries of evt_N in one log, each with its own name.
  await hooks.getByRole("button", { name: "Deliveries to https://one.example.invalid/in", exact: true }).click();
  const one = hooks.getByRole("list", { name: "Deliveries to https://one.example.invalid/in" });
  await expect(one.getByRole("listitem")).toHaveCount(1);
  await one.getByRole("button", { name: /^Redeliver / }).click();
  await expect(page.getByText("Delivery queued again")).toBeVisible();
  await expect(one.getByRole("listitem")).toHaveCount(2);
  const withOne = await names();
  // Each card's Deliveries (or Hide deliveries), Turn off and Delete; the open log's Refresh log and two Redelivers.
  expect(withOne.length).toBeGreaterThanOrEqual(9);
  expect(withOne.length).toBe(new Set(withOne).size);
  // The other endpoint's log: its delivery of the same event is named apart from the first's.
  await hooks.getByRole("button", { name: "Deliveries to https://two.example.invalid/in", exact: true }).click();
  await expect(hooks.getByRole("list", { name: "Deliveries to https://two.example.invalid/in" }).getByRole("listitem")).toHaveCount(1);
  const withTwo = await names();
  const redelivers = [...withOne, ...withTwo].filter((n) => n.startsWith("Redeliver"));
  expect(redelivers).toHaveLength(3);
  expect(new Set(redelivers).size).toBe(3);
  expect(withTwo.length).toBe(new Set(withTwo).size);
  for (const url of ["https://one.example.invalid/in", "https://two.example.invalid/in"]) {
    await expect(hooks.getByRole("button", { name: `Turn off webhook ${url}`, exact: true })).toHaveText("Turn off");
  }
});

test("rotate a secret by keyboard: asked first, the new secret shown once, focus back on the button", async ({ page }) => {
  await registerViaApi(page.request);
  const made = await page.request.post("/api/webhooks", { data: { url: "https://hooks.example.invalid/rotate", events: ["link.created"] } });
  expect(made.status()).toBe(201);
  const old = (await made.json()).secret as string;
  await page.goto("/settings/webhooks");
  const card = page.getByRole("list", { name: "Webhooks" }).getByRole("listitem").filter({ hasText: "https://hooks.example.invalid/rotate" });
  await expect(card.getByText(`Secret …${old.slice(-4)}`)).toBeVisible();
  const rotate = card.getByRole("button", { name: "Rotate secret of webhook https://hooks.example.invalid/rotate" });
  await expect(rotate).toHaveText("Rotate secret");

  // Cancel changes nothing and gives focus back.
  await rotate.focus();
  await page.keyboard.press("Enter");
  const confirm = page.getByRole("alertdialog", { name: "Rotate secret" });
  await expect(confirm).toContainText("https://hooks.example.invalid/rotate");
  await expect(confirm.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(confirm).toHaveCount(0);
  await expect(rotate).toBeFocused();
  await expect(card.getByText(`Secret …${old.slice(-4)}`)).toBeVisible();

  await page.keyboard.press("Enter");
  await confirm.getByRole("button", { name: "Rotate secret" }).press("Enter");
  const dialog = page.getByRole("dialog", { name: "New signing secret" });
  const field = dialog.getByLabel("Signing secret");
  await expect(field).toBeFocused();
  const secret = await field.inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  expect(secret).not.toBe(old);
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  await dialog.getByRole("button", { name: "Done" }).press("Enter");
  await expect(dialog).toHaveCount(0);
  await expect(rotate).toBeFocused();
  // Shown once: the card has only its last four characters, and the server signs with it.
  await expect(card.getByText(`Secret …${secret.slice(-4)}`)).toBeVisible();
  await expect(page.getByText(secret)).toHaveCount(0);
  const listed = (await (await page.request.get("/api/webhooks")).json()) as { url: string; secretHint: string; enabled: boolean; events: string[] }[];
  expect(listed).toEqual([expect.objectContaining({ url: "https://hooks.example.invalid/rotate", secretHint: secret.slice(-4), enabled: true, events: ["link.created"] })]);
});

test("the delivery log is read afresh when opened again and on Refresh log, not kept from an earlier opening", async ({ page }) => {
  await registerViaApi(page.request);
  const made = await page.request.post("/api/webhooks", { data: { url: "https://hooks.example.invalid/fresh", events: ["link.created"] } });
  expect(made.status()).toBe(201);
  const link = (title: string) => page.request.post("/api/links", { data: { originalUrl: `https://example.com/${title}`, title } });
  expect((await link("First")).status()).toBe(201);
  await page.goto("/settings/webhooks");
  const card = page.getByRole("list", { name: "Webhooks" }).getByRole("listitem").filter({ hasText: "https://hooks.example.invalid/fresh" });
  const log = card.getByRole("list", { name: "Deliveries to https://hooks.example.invalid/fresh" });
  await card.getByRole("button", { name: "Deliveries to https://hooks.example.invalid/fresh", exact: true }).click();
  await expect(log.getByRole("listitem")).toHaveCount(1);
  await card.getByRole("button", { name: "Hide deliveries to https://hooks.example.invalid/fresh" }).click();

  // Made while the log was closed: opening it again shows it.
  expect((await link("Second")).status()).toBe(201);
  await card.getByRole("button", { name: "Deliveries to https://hooks.example.invalid/fresh", exact: true }).click();
  await expect(log.getByRole("listitem")).toHaveCount(2);

  // Made while the log is open: Refresh log shows it.
  expect((await link("Third")).status()).toBe(201);
  await card.getByRole("button", { name: "Refresh deliveries to https://hooks.example.invalid/fresh" }).click();
  await expect(log.getByRole("listitem")).toHaveCount(3);
});

test("the webhooks section at 360 px, light and dark: no serious axe violation, nothing wider than the phone", async ({ page }) => {
  await registerViaApi(page.request);
  expect((await page.request.post("/api/webhooks", { data: { url: "https://a-rather-long-host-name.hooks.example.invalid/threadlink/incoming", events: ["link.created", "clicks.recorded", "title.added"] } })).status()).toBe(201);
  await page.setViewportSize({ width: 360, height: 740 });
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.goto("/settings/webhooks");
    await expect(page.getByRole("list", { name: "Webhooks" })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    // Each event's checkbox sits beside its words, checkbox-sized (it was a full-width 40 px box
    // on a line of its own, above its label).
    for (const name of ["Link created", "Clicks recorded", "Import finished"]) {
      const box = (await page.getByRole("checkbox", { name }).boundingBox())!;
      const label = (await page.locator("label").filter({ has: page.getByRole("checkbox", { name }) }).boundingBox())!;
      expect(box.width).toBeLessThanOrEqual(24);
      expect(label.height).toBeLessThan(32);
    }
    const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
    expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await page.screenshot({ path: `${test.info().outputDir}/webhooks-360-${colorScheme}.png`, fullPage: true });
  }
});
