import { expect, test } from "@playwright/test";
import { registerViaApi } from "./helpers";

test("free plan: emoji locked and the topic limit enforced; upgrading to Premium unlocks emoji", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/");
  const emoji = page.getByLabel(/Emoji/);
  await expect(emoji).toBeDisabled();
  await expect(page.getByText("Premium", { exact: true })).toBeVisible();
  await expect(page.getByText("0 of 5 topics on the Free plan.")).toBeVisible();

  // The e2e server runs with FREE_TOPIC_LIMIT=5.
  for (let i = 1; i <= 5; i++) await page.request.post("/api/topics", { data: { name: `Topic ${i}` } });
  await page.reload();
  await expect(page.getByText("5 of 5 topics on the Free plan.")).toBeVisible();
  await page.getByLabel("Topic name").fill("One too many");
  await page.getByRole("button", { name: "Add Topic" }).click();
  await expect(page.getByText("The Free plan includes up to 5 topics. Upgrade to Premium for unlimited topics.")).toBeVisible();

  await page.getByRole("link", { name: "Upgrade to Premium" }).click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(page.getByRole("heading", { name: /^Free/ })).toBeVisible();
  await expect(page.getByText("$0")).toBeVisible();
  await expect(page.getByText("$3.49")).toBeVisible();
  await expect(page.getByText("per month")).toBeVisible();
  const upgrade = page.getByRole("button", { name: "Upgrade" });
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route("**/api/subscription/upgrade", async (route) => {
    await held;
    await route.continue();
  });
  await upgrade.click();
  await expect(page.getByRole("button", { name: "Processing..." })).toBeDisabled();
  release();
  await expect(page.getByText("Success!")).toBeVisible();
  await expect(page.getByText("Your subscription has been upgraded to Premium.")).toBeVisible();
  // The Premium card shows the plan the user has, not a greyed-out Upgrade (issue 13).
  await expect(page.getByRole("button", { name: "Upgrade" })).toHaveCount(0);
  await expect(page.getByText("Current plan")).toBeVisible();
  await expect(page.getByText(/You're on Premium, until [A-Z][a-z]{2} \d{1,2}, \d{4}\.$/)).toBeVisible();

  await page.goto("/");
  await expect(page.getByLabel(/Emoji/)).toBeEnabled();
  await expect(page.getByText(/topics on the Free plan/)).toHaveCount(0);
  await page.getByLabel(/Emoji/).selectOption("🚀");
  await page.getByLabel("Topic name").fill("Launch");
  await page.getByRole("button", { name: "Add Topic" }).click();
  await expect(page.getByText("Topic created successfully")).toBeVisible();
  await expect(page.getByRole("listitem", { name: "🚀 Launch" })).toBeVisible();
});

test("pricing, about and how-to are public; about names the operator from config", async ({ page }) => {
  await page.goto("/pricing");
  await expect(page.getByRole("heading", { name: "Pricing" })).toBeVisible();
  await page.getByRole("button", { name: "Upgrade" }).click();
  await expect(page).toHaveURL(/\/auth\?next=%2Fpricing$/);

  await page.goto("/about");
  await expect(page.getByRole("heading", { name: /^About/ })).toBeVisible();
  // Without OPERATOR_NAME / OPERATOR_ADDRESS: a neutral line that names no setting (issue 13).
  const config = await (await page.request.get("/api/config")).json();
  expect(config).toMatchObject({ operatorName: null, operatorAddress: null });
  await expect(page.getByText("This Threadlink server is run independently by the person or organisation that set it up.")).toBeVisible();
  await expect(page.getByRole("main")).not.toContainText(/OPERATOR_|not configured/i);
  await page.getByRole("main").getByRole("link", { name: "How to Use" }).click();
  await expect(page).toHaveURL(/\/how-to-use$/);
  await expect(page.getByRole("listitem").filter({ hasText: "Add Topic" }).first()).toBeVisible();
  for (const step of ["Create topics", "Start a message thread", "Send the first message", "Organise topics by dragging"]) {
    await expect(page.getByRole("heading", { name: step })).toBeVisible();
  }
  await expect(page.getByRole("heading", { name: "Pro tips" })).toBeVisible();
  await expect(page.locator(".tips li")).toHaveCount(3);
  // Footer links.
  await page.getByRole("contentinfo").getByRole("link", { name: "Pricing" }).click();
  await expect(page).toHaveURL(/\/pricing$/);
});
