// The API reference (issue 14): /api/docs renders the OpenAPI document from the binary alone
// (nothing from another origin, under the app's CSP) and its console sends real requests with
// a pasted key or the page's session, by keyboard. Axe in light and dark, and a 360 px phone.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { expectNoHorizontalOverflow, registerViaApi, trackOutsideRequests } from "./helpers";

async function openOperation(page: Page, summary: string) {
  const op = page.locator("details").filter({ has: page.locator("summary", { hasText: summary }) }).first();
  // Opened from the keyboard: the summary takes focus and Enter toggles it.
  await op.locator("summary").focus();
  await page.keyboard.press("Enter");
  await expect(op).toHaveAttribute("open", "");
  return op;
}

test("the reference page sends requests with a pasted key: create, edit, list and import links", async ({ page, baseURL }) => {
  const outside = trackOutsideRequests(page);
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content.Security.Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  // The key comes from the API, as a script's owner would make it in Settings.
  await registerViaApi(page.request);
  const key = (await (await page.request.post("/api/api-keys", { data: { name: "docs", scope: "read-write", only: "links" } })).json()).key as string;
  // The console must work for someone who is not signed in to the web app.
  await page.context().clearCookies();

  await page.goto("/api/docs");
  await expect(page.getByRole("heading", { name: "API reference", level: 1 })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Links", level: 2, exact: true })).toBeVisible();
  // Every error code is documented on the page.
  for (const code of ["VALIDATION", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT", "RATE_LIMITED"]) {
    await expect(page.getByRole("cell", { name: code, exact: true })).toBeVisible();
  }

  await page.getByRole("radio", { name: "An API key" }).check();
  await page.getByRole("textbox", { name: "API key", exact: true }).fill(key);

  // Create: the example body as shown, sent from the keyboard.
  const create = await openOperation(page, "Create a link");
  const createForm = create.getByRole("form", { name: "Try Create a link" });
  await expect(createForm.getByLabel("curl command for Create a link")).toContainText("Authorization: Bearer $THREADLINK_API_KEY");
  await createForm.getByLabel("Body (JSON)", { exact: true }).fill(JSON.stringify({ originalUrl: "https://example.com/from-the-docs", title: "From the docs" }));
  await createForm.getByRole("button", { name: "Send POST request" }).press("Enter");
  await expect(createForm.getByRole("status")).toContainText("201");
  const made = JSON.parse((await createForm.getByLabel("Response body").textContent()) ?? "{}");
  expect(made).toMatchObject({ originalUrl: "https://example.com/from-the-docs", title: "From the docs" });

  // Edit it: the id goes in the path field.
  const edit = await openOperation(page, "Edit a link");
  const editForm = edit.getByRole("form", { name: "Try Edit a link" });
  await editForm.getByLabel("id", { exact: true }).fill(String(made.id));
  await editForm.getByLabel("Body (JSON)", { exact: true }).fill(JSON.stringify({ originalUrl: "https://example.com/edited-in-the-docs", title: "Edited in the docs" }));
  await editForm.getByRole("button", { name: "Send PUT request" }).click();
  await expect(editForm.getByRole("status")).toContainText("200");
  await expect(editForm.getByLabel("Response body")).toContainText("https://example.com/edited-in-the-docs");
  await expect(editForm.getByLabel("Response body")).toContainText(made.shortCode);

  // A rule broken: the error shape with its code and field, as documented.
  await editForm.getByLabel("Body (JSON)", { exact: true }).fill(JSON.stringify({ originalUrl: "javascript:alert(1)", title: "x" }));
  await editForm.getByRole("button", { name: "Send PUT request" }).click();
  await expect(editForm.getByRole("status")).toContainText("400");
  await expect(editForm.getByLabel("Response body")).toContainText('"code": "VALIDATION"');

  // List: the edited link is there.
  const list = await openOperation(page, "List your links");
  const listForm = list.getByRole("form", { name: "Try List your links" });
  await listForm.getByRole("button", { name: "Send GET request" }).click();
  await expect(listForm.getByRole("status")).toContainText("200");
  await expect(listForm.getByLabel("Response body")).toContainText("Edited in the docs");

  // Import: the file's text goes in as the body, sent as text/csv.
  const imp = await openOperation(page, "Import links from a CSV file");
  const impForm = imp.getByRole("form", { name: "Try Import links from a CSV file" });
  await impForm.getByLabel("Body (text/csv)", { exact: true }).fill("url,code,title\nhttps://example.com/imported-in-the-docs,,Imported in the docs\nnot a url,,Bad row\n");
  await impForm.getByRole("button", { name: "Send POST request" }).click();
  await expect(impForm.getByRole("status")).toContainText("200");
  await expect(impForm.getByLabel("Response body")).toContainText('"imported": 1');
  await expect(impForm.getByLabel("Response body")).toContainText('"skipped": 1');

  // The key's scope holds here too: topics are out of its reach.
  const topics = await openOperation(page, "List your topics");
  const topicsForm = topics.getByRole("form", { name: "Try List your topics" });
  await topicsForm.getByRole("button", { name: "Send GET request" }).click();
  await expect(topicsForm.getByRole("status")).toContainText("403");

  // And the redirect follows the edit at once.
  const followed = await fetch(`${baseURL}/${made.shortCode}`, { redirect: "manual" });
  expect(followed.headers.get("location")).toBe("https://example.com/edited-in-the-docs");
  expect(outside).toEqual([]);
  expect(violations).toEqual([]);
});

test("the reference page with the page's own session, reached from Settings", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/settings");
  await page.getByRole("link", { name: "the API reference" }).click();
  await expect(page).toHaveURL(/\/api\/docs$/);
  const user = await openOperation(page, "The signed-in user");
  await user.getByRole("button", { name: "Send GET request" }).click();
  await expect(user.getByRole("status")).toContainText("200");
  await expect(user.getByLabel("Response body")).toContainText('"username"');
});

test("the reference page: no serious axe violation in light or dark, nothing wider than a 360 px phone", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.goto("/api/docs");
    await expect(page.getByRole("heading", { name: "API reference", level: 1 })).toBeVisible();
    await page.getByRole("radio", { name: "An API key" }).check();
    const op = await openOperation(page, "Create a link");
    await op.getByRole("button", { name: "Send POST request" }).click();
    await expect(op.getByText("Paste an API key above, or choose this browser's session.")).toBeVisible();
    await expectNoHorizontalOverflow(page);
    await page.screenshot({ path: `${test.info().outputDir}/apidocs-360-${colorScheme}.png`, fullPage: false });
    const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
    expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help} ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`)).toEqual([]);
  }
});

test("a shell user is told where the curl commands take the key from, and every operation, open and answered, fits a 360 px phone", async ({ page }) => {
  await registerViaApi(page.request);
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto("/api/docs");
  await expect(page.getByRole("heading", { name: "API reference", level: 1 })).toBeVisible();
  // The curl commands read $THREADLINK_API_KEY: the page says how to set it (never with the key itself).
  await page.getByRole("radio", { name: "An API key" }).check();
  await expect(page.getByLabel("Set the key in your shell")).toHaveText("export THREADLINK_API_KEY='tl_…'");
  // An open route needs no key, so its curl sends none.
  const health = await openOperation(page, "Health check");
  await expect(health.getByLabel("curl command for Health check")).not.toContainText("Authorization");
  // Long comma-joined words in the descriptions (CSV headers) wrap instead of widening the page.
  await page.getByRole("radio", { name: "This browser's session (sign in first)" }).check();
  for (const summary of await page.locator("details > summary").all()) {
    await summary.focus();
    await page.keyboard.press("Enter");
  }
  const imp = page.getByRole("form", { name: "Try Import links from a CSV file" });
  await imp.getByRole("button", { name: "Send POST request" }).click();
  await expect(imp.getByRole("status")).toContainText("200");
  await expectNoHorizontalOverflow(page);
});

test("at 360 px the error table keeps short words whole (status, 400) and breaks only the long codes", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto("/api/docs");
  const lines = (name: string, role: "columnheader" | "cell") =>
    page.getByRole(role, { name, exact: true }).first().evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    });
  expect(await lines("status", "columnheader")).toBe(1);
  expect(await lines("400", "cell")).toBe(1);
  expect(await lines("VALIDATION", "cell")).toBe(1);
  // Each radio stays beside its label (the session one wrapped its text under the dot).
  for (const name of ["This browser's session (sign in first)", "An API key"]) {
    const radio = (await page.getByRole("radio", { name }).boundingBox())!;
    const text = await page.locator("label", { hasText: name }).evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents([...el.childNodes].find((n) => n.nodeType === Node.TEXT_NODE)!);
      const first = range.getClientRects()[0]!;
      return { left: first.left, top: first.top, bottom: first.bottom };
    });
    expect(text.left, name).toBeGreaterThan(radio.x + radio.width);
    expect(text.top, name).toBeLessThan(radio.y + radio.height);
  }
  await expectNoHorizontalOverflow(page);
});

test("the bulk create's body says what one item is (the body of Create a link), not just any[]", async ({ page }) => {
  await page.goto("/api/docs");
  const bulk = await openOperation(page, "Create up to 1,000 links");
  const body = bulk.locator("h3", { hasText: "Request body" }).locator("xpath=following-sibling::pre[1]");
  // Typed in the document (issue 23): each item is CreateLinkBody, written out with its fields.
  await expect(body).toContainText("originalUrl: string (not empty)  // Where the short link goes: an http or https URL, as it was entered");
  await expect(body).toContainText("}[]  // 1 to 1,000 links, each the body of POST /api/links");
  await expect(body).not.toContainText("any[]");
});

test("a request sent from the keyboard keeps focus on its Send button (busy, it was disabled and focus fell to the body)", async ({ page }) => {
  await page.goto("/api/docs");
  const health = await openOperation(page, "Health check");
  const send = health.getByRole("button", { name: "Send GET request" });
  for (let i = 0; i < 2; i++) {
    await send.focus();
    await page.keyboard.press("Enter");
    await expect(health.getByRole("status")).toContainText("200");
    await expect(send).toBeFocused();
  }
});

test("the import shows both of its media types, and the console sends the JSON export's shape when JSON is chosen", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/api/docs");
  const imp = await openOperation(page, "Import links from a CSV file");
  await expect(imp.getByRole("heading", { name: "Request body (text/csv)", level: 3 })).toBeVisible();
  await expect(imp.getByRole("heading", { name: "Request body (application/json)", level: 3 })).toBeVisible();
  const form = imp.getByRole("form", { name: "Try Import links from a CSV file" });
  await form.getByLabel("Send the body as").selectOption({ label: "application/json" });
  const body = form.getByLabel("Body (JSON)", { exact: true });
  await expect(body).toHaveValue(/"links"/);
  await expect(form.getByLabel("curl command for Import links from a CSV file")).toContainText("Content-Type: application/json");
  await body.fill(JSON.stringify({ links: [{ originalUrl: "https://example.com/json-from-the-docs", title: "JSON from the docs" }] }));
  await form.getByRole("button", { name: "Send POST request" }).click();
  await expect(form.getByRole("status")).toContainText("200");
  await expect(form.getByLabel("Response body")).toContainText('"format": "json"');
  await expect(form.getByLabel("Response body")).toContainText('"imported": 1');
});
