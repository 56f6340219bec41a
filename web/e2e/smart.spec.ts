// Smart links (issue 24) in Chromium against the compiled binary: the password page a visitor
// meets (keyboard only, light and dark, 360 px, no script, axe), the Smart settings dialog and
// its rule simulator, and the Link Tracker's badges.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { expectNoHorizontalOverflow, registerViaApi, uniqueName } from "./helpers";

async function seriousAxe(page: Page) {
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`);
}

async function protectedLink(page: Page, password: string) {
  await registerViaApi(page.request);
  const code = uniqueName("pw").replace(/[^A-Za-z0-9_-]/g, "").slice(0, 40);
  const r = await page.request.post("/api/links", { data: { originalUrl: "https://example.com/secret-page", title: "Secret", shortCode: code } });
  expect(r.status()).toBe(201);
  const { id } = (await r.json()) as { id: number };
  expect((await page.request.put(`/api/links/${id}/smart`, { data: { password } })).status()).toBe(200);
  return { id, code };
}

for (const scheme of ["light", "dark"] as const)
  test(`password page, ${scheme} at 360 px, keyboard only: wrong password said, right one unlocks`, async ({ page }) => {
    const { code } = await protectedLink(page, "open sesame");
    // A fresh browser context for the visitor: the owner's session is not what unlocks it.
    await page.context().clearCookies();
    await page.setViewportSize({ width: 360, height: 740 });
    await page.emulateMedia({ colorScheme: scheme });
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && errors.push(m.text()));
    // The redirect target is outside: answered here so the test never leaves the machine.
    await page.route("https://example.com/**", (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>Destination</title><h1>Destination</h1>" }));

    const res = await page.goto(`/${code}`);
    expect(res?.status()).toBe(200);
    await expect(page.getByRole("heading", { name: "This link is password protected", level: 1 })).toBeVisible();
    expect(await page.locator("script").count()).toBe(0);
    await expectNoHorizontalOverflow(page);
    await expect(page.locator("body")).toHaveCSS("background-color", scheme === "dark" ? "rgb(15, 17, 21)" : "rgb(247, 247, 251)");
    expect(await seriousAxe(page)).toEqual([]);

    // Keyboard only: the field has focus (autofocus), type, Enter.
    const field = page.getByLabel("Password");
    await expect(field).toBeFocused();
    await page.keyboard.type("wrong guess");
    await page.keyboard.press("Enter");
    await expect(page.getByRole("alert")).toHaveText("That password is not right. Please try again.");
    await expect(page.getByLabel("Password")).toHaveAttribute("aria-invalid", "true");
    expect(await seriousAxe(page)).toEqual([]);
    await page.getByLabel("Password").focus();
    await page.keyboard.type("open sesame");
    await page.keyboard.press("Tab");
    await expect(page.getByRole("button", { name: "Continue" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL("https://example.com/secret-page");
    // Unlocked: the next visit goes straight through (the browser's cookies, the redirect not followed).
    const again = await page.request.get(`/${code}`, { maxRedirects: 0 });
    expect(again.status()).toBe(302);
    expect(again.headers().location).toBe("https://example.com/secret-page");
    expect(errors).toEqual([]);
  });

test("Smart settings dialog: add a rule and a limit, the badges show, the simulator explains", async ({ page }) => {
  await registerViaApi(page.request);
  const r = await page.request.post("/api/links", { data: { originalUrl: "https://example.com/app", title: "Get the app" } });
  expect(r.status()).toBe(201);
  await page.goto("/link-tracker");
  const row = page.locator("li.link-row", { hasText: "Get the app" });
  await row.getByRole("button", { name: "More actions for Get the app" }).click();
  await page.getByRole("menuitem", { name: "Smart settings" }).click();
  const dialog = page.getByRole("dialog", { name: "Smart settings: Get the app" });
  await expect(dialog).toBeVisible();

  await dialog.getByRole("button", { name: "Add rule" }).click();
  // The new rule's first field takes the focus (its fields appear above the button).
  await expect(dialog.getByLabel("Rule 1 name")).toBeFocused();
  await dialog.getByLabel("Rule 1 name").fill("iPhone");
  await dialog.getByLabel("Rule 1 destination").fill("https://apps.apple.com/app/id1");
  // As people write it: the closed list's value is "ios".
  await dialog.getByLabel("Operating systems").fill("iOS");
  // A city rule says what it needs (the bundled database has countries only).
  await expect(dialog.getByLabel("Cities")).toHaveAccessibleDescription("Needs city data: GEOIP_DB on the server, or a CDN's city header.");
  await dialog.getByLabel("Maximum clicks (Optional)").fill("100");
  expect(await seriousAxe(page)).toEqual([]);
  await dialog.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Smart settings saved")).toBeVisible();
  await expect(row.getByText("Rules", { exact: true })).toBeVisible();
  await expect(row.getByText("Click limit", { exact: true })).toBeVisible();

  // The simulator answers from the saved settings.
  await row.getByRole("button", { name: "More actions for Get the app" }).click();
  await page.getByRole("menuitem", { name: "Smart settings" }).click();
  await expect(dialog.getByLabel("Rule 1 name")).toHaveValue("iPhone");
  await dialog.getByLabel("Operating system", { exact: true }).selectOption("ios");
  await dialog.getByRole("button", { name: "Simulate" }).click();
  await expect(dialog.getByText("https://apps.apple.com/app/id1")).toBeVisible();
  await expect(dialog.getByText("iPhone matched (rules are tried in order; the first match wins).")).toBeVisible();
  await dialog.getByLabel("Operating system", { exact: true }).selectOption("android");
  await dialog.getByRole("button", { name: "Simulate" }).click();
  await expect(dialog.getByText("No rule matched: the link's own destination.")).toBeVisible();
  await expect(dialog.getByText("✗ iPhone: OS is android, not ios")).toBeVisible();
  // This browser (desktop Chromium on Linux): not an iPhone.
  await dialog.getByRole("button", { name: "This browser, now" }).click();
  await expect(dialog.getByText("✗ iPhone: OS is linux, not ios")).toBeVisible();
  expect(await seriousAxe(page)).toEqual([]);
});

test("Smart settings dialog at 360 px, dark: fits, and a bad value is said", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.emulateMedia({ colorScheme: "dark" });
  await registerViaApi(page.request);
  expect((await page.request.post("/api/links", { data: { originalUrl: "https://example.com/x", title: "Narrow" } })).status()).toBe(201);
  await page.goto("/link-tracker");
  await page.getByRole("button", { name: "More actions for Narrow" }).click();
  await page.getByRole("menuitem", { name: "Smart settings" }).click();
  const dialog = page.getByRole("dialog", { name: "Smart settings: Narrow" });
  await dialog.getByLabel("Fallback URL after the limit (Optional)").fill("https://example.com/over");
  await dialog.getByRole("button", { name: "Save settings" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("A fallback URL needs a click limit");
  await expectNoHorizontalOverflow(page);
  // The checkboxes sit at their own size right beside their words (they were stretched across the row).
  const split = dialog.getByRole("checkbox", { name: "Split visitors no rule matched between destinations" });
  await split.check();
  for (const name of ["Split visitors no rule matched between destinations", "Sticky: a visitor gets the same destination for 24 hours"]) {
    const box = (await dialog.getByRole("checkbox", { name }).boundingBox())!;
    const words = (await dialog.locator("label.check", { hasText: name.split(":")[0]! }).boundingBox())!;
    expect(box.width).toBeLessThan(32);
    expect(box.x - words.x).toBeLessThan(4);
  }
  // A refused rule or split destination is named in the message: the rules' fields look alike.
  await dialog.getByLabel("Maximum clicks (Optional)").fill("10");
  await dialog.getByLabel("Destination A URL").fill("https://example.com/a");
  await dialog.getByLabel("Destination B URL").fill("https://example.com/b");
  await dialog.getByLabel("Destination B weight").fill("0");
  await dialog.getByRole("button", { name: "Save settings" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("Destination B: Weights are whole numbers from 1 to 1,000");
  await dialog.getByLabel("Destination B weight").fill("5");
  await dialog.getByRole("button", { name: "Add rule" }).click();
  await dialog.getByRole("button", { name: "Add rule" }).click();
  await dialog.getByLabel("Rule 1 destination").fill("https://example.com/one");
  await dialog.getByRole("group", { name: "Rule 1" }).getByLabel("Countries").fill("DE");
  await dialog.getByLabel("Rule 2 destination").fill("https://example.com/two");
  await dialog.getByRole("button", { name: "Save settings" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("Rule 2: A rule needs at least one condition");
  // The server's refusal (a loop to this very host) is placed the same way, from its field's name.
  await dialog.getByRole("group", { name: "Rule 2" }).getByLabel("Countries").fill("FR");
  await dialog.getByLabel("Rule 2 destination").fill(`${new URL(page.url()).origin}/loop`);
  await dialog.getByRole("button", { name: "Save settings" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("Rule 2: Links to our own short domains cannot be shortened (that would make a redirect loop)");
  expect(await seriousAxe(page)).toEqual([]);
});

test("Smart settings dialog: rules are reordered by keyboard, and the redirect follows the new order", async ({ page }) => {
  await registerViaApi(page.request);
  const r = await page.request.post("/api/links", { data: { originalUrl: "https://example.com/home", title: "Ordered" } });
  const { id, shortCode } = (await r.json()) as { id: number; shortCode: string };
  const rules = [
    { name: "Everyone in 2000s", when: { from: "2000-01-01T00:00:00Z" }, url: "https://example.com/everyone" },
    { name: "Linux", when: { os: ["linux"] }, url: "https://example.com/linux" },
  ];
  expect((await page.request.put(`/api/links/${id}/smart`, { data: { rules } })).status()).toBe(200);
  // A click before the move: it stays the first rule's wherever that rule goes.
  expect((await page.request.get(`/${shortCode}`, { maxRedirects: 0 })).headers().location).toBe("https://example.com/everyone");
  await page.goto("/link-tracker");
  await page.getByRole("button", { name: "More actions for Ordered" }).click();
  await page.getByRole("menuitem", { name: "Smart settings" }).click();
  const dialog = page.getByRole("dialog", { name: "Smart settings: Ordered" });
  // At the ends there is nothing to move past.
  await expect(dialog.getByRole("button", { name: "Move rule 1 up" })).toHaveCount(0);
  await expect(dialog.getByRole("button", { name: "Move rule 2 down" })).toHaveCount(0);
  await dialog.getByRole("button", { name: "Move rule 2 up" }).focus();
  await page.keyboard.press("Enter");
  await expect(dialog.getByLabel("Rule 1 name")).toHaveValue("Linux");
  await expect(dialog.getByLabel("Rule 2 name")).toHaveValue("Everyone in 2000s");
  // The focus went with the rule: Enter again moves it back down.
  await expect(dialog.getByRole("button", { name: "Move rule 1 down" })).toBeFocused();
  expect(await seriousAxe(page)).toEqual([]);
  // Renamed as well as moved: the dialog sends each rule's id back, so both keep theirs.
  await dialog.getByLabel("Rule 2 name").fill("Everyone since 2000");
  await dialog.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Smart settings saved")).toBeVisible();
  const saved = (await (await page.request.get(`/api/links/${id}/smart`)).json()) as { rules: { id: number; name: string }[] };
  expect(saved.rules.map((x) => [x.id, x.name])).toEqual([[2, "Linux"], [1, "Everyone since 2000"]]);
  // The click writer batches: the report has the click within a moment.
  const routes = async () => ((await (await page.request.get(`/api/links/${id}/analytics`)).json()) as { smart: { routes: unknown[] } | null }).smart?.routes;
  await expect.poll(routes).toEqual([{ route: "rule:1", name: "Rule 2: Everyone since 2000", count: 1 }]);
  const linux = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
  expect((await page.request.get(`/${shortCode}`, { maxRedirects: 0, headers: { "user-agent": linux } })).headers().location).toBe("https://example.com/linux");
});

test("Link Tracker: a used-up click limit says so in words", async ({ page }) => {
  await registerViaApi(page.request);
  const r = await page.request.post("/api/links", { data: { originalUrl: "https://example.com/once", title: "Only once" } });
  const { id, shortCode } = (await r.json()) as { id: number; shortCode: string };
  expect((await page.request.put(`/api/links/${id}/smart`, { data: { maxClicks: 1 } })).status()).toBe(200);
  await page.goto("/link-tracker");
  const row = page.locator("li.link-row", { hasText: "Only once" });
  await expect(row.getByText("Click limit", { exact: true })).toBeVisible();
  expect((await page.request.get(`/${shortCode}`, { maxRedirects: 0 })).status()).toBe(302);
  await page.reload();
  await expect(row.getByText("Click limit reached", { exact: true })).toBeVisible();
  await expect(row.getByText("Click limit", { exact: true })).toHaveCount(0);
  expect(await seriousAxe(page)).toEqual([]);
});

test("UTM builder in the create dialog writes the parameters into the URL and saves a template", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/link-tracker");
  await page.getByRole("button", { name: "Create Link" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Short Link" });
  await dialog.getByLabel("URL", { exact: true }).fill("https://example.com/spring?ref=1");
  await dialog.getByText("UTM parameters (Optional)").click();
  await dialog.getByLabel("UTM source").fill("newsletter");
  await dialog.getByLabel("UTM medium").fill("email");
  await expect(dialog.getByLabel("URL", { exact: true })).toHaveValue("https://example.com/spring?ref=1&utm_source=newsletter&utm_medium=email");
  await dialog.getByLabel("Save these as a template named").fill("Mail");
  await dialog.getByRole("button", { name: "Save template" }).click();
  await expect(page.getByText("UTM template saved")).toBeVisible();
  await expect(dialog.getByLabel("Template", { exact: true })).toBeVisible();
  // Enter in the template's name saves the template; it does not submit the dialog (create the link).
  await dialog.getByLabel("Title").fill("Not yet");
  await dialog.getByLabel("Save these as a template named").fill("Mail by Enter");
  await dialog.getByLabel("Save these as a template named").press("Enter");
  await expect(dialog.getByLabel("Template", { exact: true }).getByRole("option", { name: "Mail by Enter" })).toBeAttached();
  await expect(dialog).toBeVisible();
  expect((await (await page.request.get("/api/links")).json()) as unknown[]).toEqual([]);
  await dialog.getByLabel("Title").fill("");
  // Clearing a field removes its parameter; the template puts it back.
  await dialog.getByLabel("UTM source").fill("");
  await expect(dialog.getByLabel("URL", { exact: true })).toHaveValue("https://example.com/spring?ref=1&utm_medium=email");
  await dialog.getByLabel("Template", { exact: true }).selectOption({ label: "Mail" });
  await expect(dialog.getByLabel("URL", { exact: true })).toHaveValue("https://example.com/spring?ref=1&utm_medium=email&utm_source=newsletter");
  // The template applied can be renamed (Enter in its name) and deleted, here where it is used.
  const applied = dialog.getByRole("group", { name: "Applied template: Mail" });
  await applied.getByLabel("Template name", { exact: true }).fill("Mail (spring)");
  await applied.getByLabel("Template name", { exact: true }).press("Enter");
  await expect(page.getByText("UTM template renamed")).toBeVisible();
  await expect(dialog).toBeVisible();
  const select = dialog.getByLabel("Template", { exact: true });
  await expect(select.getByRole("option")).toHaveText(["Choose a saved template", "Mail (spring)", "Mail by Enter"]);
  expect(await seriousAxe(page)).toEqual([]);
  await dialog.getByRole("group", { name: "Applied template: Mail (spring)" }).getByRole("button", { name: "Delete template" }).click();
  await expect(page.getByText('UTM template "Mail (spring)" deleted')).toBeVisible();
  await expect(select.getByRole("option")).toHaveText(["Choose a saved template", "Mail by Enter"]);
  expect(((await (await page.request.get("/api/utm-templates")).json()) as { name: string }[]).map((x) => x.name)).toEqual(["Mail by Enter"]);
  await dialog.getByLabel("Title").fill("Spring mail");
  await dialog.getByRole("button", { name: "Create" }).click();
  await expect(page.getByRole("heading", { name: "Spring mail" })).toBeVisible();
});

test("analytics show clicks per rule", async ({ page }) => {
  await registerViaApi(page.request);
  const r = await page.request.post("/api/links", { data: { originalUrl: "https://example.com/ruled", title: "Ruled link" } });
  const { id, shortCode } = (await r.json()) as { id: number; shortCode: string };
  await page.request.put(`/api/links/${id}/smart`, { data: { rules: [{ name: "iPhone", when: { os: ["ios"] }, url: "https://apps.apple.com/app/id1" }] } });
  const iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
  expect((await page.request.get(`/${shortCode}`, { maxRedirects: 0, headers: { "user-agent": iphone } })).headers().location).toBe("https://apps.apple.com/app/id1");
  expect((await page.request.get(`/${shortCode}`, { maxRedirects: 0 })).headers().location).toBe("https://example.com/ruled");
  await page.goto("/link-tracker");
  await page.getByRole("button", { name: "Analytics for Ruled link" }).click();
  const section = page.getByRole("region", { name: "Clicks per rule or destination" });
  await expect(section.getByText("Rule 1: iPhone")).toBeVisible();
  await expect(section.getByText("Default destination")).toBeVisible();
});

test("Create dialog: a protected, limited link from the start (keyboard), the badges show, the password page asks", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/link-tracker");
  await page.getByRole("button", { name: /^Create (Link|your first link)$/ }).first().click();
  const dialog = page.getByRole("dialog", { name: "Create Short Link" });
  const code = uniqueName("cp").replace(/[^A-Za-z0-9_-]/g, "").slice(0, 40);
  // Folded, the settings' fields are not there (the create dialog's other specs find one "URL").
  await expect(dialog.getByLabel("Password (Optional)")).toHaveCount(0);
  await dialog.getByLabel("URL", { exact: true }).fill("https://example.com/members");
  await dialog.getByLabel("Title", { exact: true }).fill("Members only");
  await dialog.getByLabel("Custom short code (Optional)").fill(code);

  // The settings are folded away; the keyboard opens them and fills them in.
  const summary = dialog.getByText("Password and click limit (Optional)");
  await summary.focus();
  await page.keyboard.press("Enter");
  await expect(dialog.getByLabel("Password (Optional)")).toBeVisible();
  // A fallback with no limit is refused in the dialog, by the same schema as the server's.
  await dialog.getByLabel("Fallback URL after the limit (Optional)").fill("https://example.com/full");
  await dialog.getByRole("button", { name: "Create", exact: true }).click();
  await expect(dialog.getByRole("alert")).toHaveText("A fallback URL needs a click limit");
  await dialog.getByLabel("Password (Optional)").focus();
  await page.keyboard.type("members 2026");
  await page.keyboard.press("Tab");
  await expect(dialog.getByLabel("Maximum clicks (Optional)")).toBeFocused();
  await page.keyboard.type("50");
  expect(await seriousAxe(page)).toEqual([]);
  await page.keyboard.press("Enter");
  await expect(page.getByText("Short link created successfully")).toBeVisible();
  await expect(dialog).toBeHidden();

  const row = page.locator("li.link-row", { hasText: "Members only" });
  await expect(row.getByText("Password", { exact: true })).toBeVisible();
  await expect(row.getByText("Click limit", { exact: true })).toBeVisible();
  // The password was sent to the server and hashed there: the link asks for it.
  const list = (await (await page.request.get("/api/links")).json()) as { id: number; shortCode: string }[];
  const made = list.find((l) => l.shortCode === code)!;
  expect((await (await page.request.get(`/api/links/${made.id}/smart`)).json()) as object).toMatchObject({ hasPassword: true, maxClicks: 50, fallbackUrl: "https://example.com/full" });
  await page.context().clearCookies();
  const res = await page.goto(`/${code}`);
  expect(res?.status()).toBe(200);
  await expect(page.getByRole("heading", { name: "This link is password protected", level: 1 })).toBeVisible();
});
