import { expect, test } from "@playwright/test";
import { expectNoHorizontalOverflow, registerViaApi, uniqueName } from "./helpers";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

test("A invites B: B accepts via /invite/{code}, sees A's shared topics with the count; A is notified", { tag: "@main-flow" }, async ({ browser }) => {
  const ctxA = await browser.newContext({ permissions: ["clipboard-read", "clipboard-write"] });
  const ctxB = await browser.newContext();
  const a = await ctxA.newPage();
  const b = await ctxB.newPage();
  const alice = await registerViaApi(a.request, uniqueName("alice"));
  const bob = await registerViaApi(b.request, uniqueName("bob"));
  for (const [name, accessType] of [["Family Chat", "personal"], ["Open Board", "public"], ["Diary", "private"]]) {
    expect((await a.request.post("/api/topics", { data: { name, accessType } })).status()).toBe(201);
  }

  // A: Shared view → Share Topics → Create Invite Link (copied to the clipboard).
  await a.goto("/");
  await a.getByLabel("View").selectOption({ label: "Shared (0)" });
  await expect(a.getByText("No shared topics yet. Accept an invite to see topics others share with you.")).toBeVisible();
  await a.getByRole("button", { name: "Share Topics" }).click();
  const dialog = a.getByRole("dialog", { name: "Share Topics" });
  await expect(dialog.getByRole("button", { name: "Accept Invite" })).toBeDisabled();
  await dialog.getByRole("button", { name: "Create Invite Link" }).click();
  await expect(a.getByText("Invite link created")).toBeVisible();
  await expect(a.getByText("Share this link with someone to start sharing topics")).toBeVisible();
  const link = await dialog.getByLabel("Invite link").inputValue();
  const origin = new URL(a.url()).origin;
  expect(link).toMatch(new RegExp(`^${origin}/invite/[A-Za-z0-9_-]{22}$`));
  expect(await a.evaluate(() => navigator.clipboard.readText())).toBe(link);
  await dialog.getByRole("button", { name: "Copy invite link" }).click();
  await expect(a.getByText("Invite link copied to clipboard")).toBeVisible();
  await a.keyboard.press("Escape");

  // B: signed out first, the invite page names the inviter and asks to sign in, then comes back.
  await ctxB.clearCookies();
  await b.goto(link);
  await expect(b.getByRole("heading", { name: `${alice} invited you` })).toBeVisible();
  await b.getByRole("link", { name: "Sign in to accept" }).click();
  await expect(b).toHaveURL(/\/auth\?next=/);
  await b.getByLabel("Username").fill(bob);
  await b.getByLabel("Password").fill("correct horse battery");
  await b.getByRole("button", { name: "Sign in" }).click();
  await expect(b).toHaveURL(new RegExp(`/invite/`));
  await b.getByRole("button", { name: "Accept Invite" }).click();
  await expect(b.getByText("Invite accepted successfully")).toBeVisible();

  // B lands on the Shared view: count in brackets, personal + public topics, never private.
  await expect(b.getByLabel("View")).toHaveValue("shared");
  await expect(b.getByRole("option", { name: "Shared (1)" })).toBeAttached();
  const shared = b.getByRole("list", { name: "Shared topics" });
  await expect(shared.getByRole("listitem", { name: "Family Chat" })).toBeVisible();
  await expect(shared.getByRole("listitem", { name: "Open Board" })).toBeVisible();
  await expect(shared.getByRole("listitem", { name: "Diary" })).toHaveCount(0);
  await expect(shared.getByText(`from ${alice}`).first()).toBeVisible();
  // Members see no owner-only controls.
  await expect(shared.getByRole("button", { name: /^Delete/ })).toHaveCount(0);

  // Using the same invite again is refused with a clear message.
  await b.goto(link);
  await expect(b.getByText(`This invite has already been used. Ask ${alice} for a new invite link.`)).toBeVisible();

  // /share/{username} shows what B may see.
  await b.goto(`/share/${alice}`);
  await expect(b.getByRole("heading", { name: `Shared Topics from ${alice}` })).toBeVisible();
  await expect(b.getByRole("listitem", { name: "Family Chat" })).toBeVisible();
  await expect(b.getByRole("listitem", { name: "Diary" })).toHaveCount(0);

  // A: the bell shows an unread dot; the notifications page lists the acceptance.
  await a.goto("/");
  await expect(a.getByRole("link", { name: "Notifications (1 unread)" })).toBeVisible();
  await expect(a.getByTestId("unread-dot")).toBeVisible();
  await a.getByRole("link", { name: "Notifications (1 unread)" }).click();
  await expect(a).toHaveURL(/\/notifications$/);
  await expect(a.getByText(`${bob} accepted your invite and can now see your shared topics.`)).toBeVisible();
  // On a phone the message keeps the row's width ("Mark as read" wraps under it) and nothing
  // scrolls sideways.
  await a.setViewportSize({ width: 360, height: 740 });
  const item = a.getByRole("listitem").filter({ hasText: "accepted your invite" });
  const rowBox = (await item.boundingBox())!;
  const textBox = (await item.getByRole("link").boundingBox())!;
  expect(textBox.width).toBeGreaterThan(rowBox.width * 0.7);
  await expectNoHorizontalOverflow(a);
  await a.getByRole("button", { name: "Mark all as read" }).click();
  await expect(a.getByRole("link", { name: "Notifications", exact: true })).toBeVisible();
  await expect(a.getByTestId("unread-dot")).toHaveCount(0);

  await ctxA.close();
  await ctxB.close();
});

test("accepting a code in the dialog: own invite is refused, a good code works, the input clears", async ({ browser }) => {
  const ctxA = await browser.newContext();
  const ctxC = await browser.newContext();
  const a = await ctxA.newPage();
  const c = await ctxC.newPage();
  const alice = await registerViaApi(a.request, uniqueName("owner"));
  await registerViaApi(c.request, uniqueName("carol"));
  await a.request.post("/api/topics", { data: { name: "Team Notes" } });
  const { code } = await (await a.request.post("/api/invites")).json();

  await a.goto("/?view=shared");
  await a.getByRole("button", { name: "Share Topics" }).click();
  await a.getByLabel("Invite code").fill(code);
  await a.getByRole("button", { name: "Accept Invite" }).click();
  await expect(a.getByText("You can't accept your own invite. Send the link to someone else.")).toBeVisible();

  await c.goto("/");
  await c.getByLabel("View").selectOption("shared");
  await c.getByRole("button", { name: "Share Topics" }).click();
  await c.getByLabel("Invite code").fill(code);
  await c.getByRole("button", { name: "Accept Invite" }).click();
  await expect(c.getByText("Invite accepted", { exact: true })).toBeVisible();
  await expect(c.getByText("You can now see shared topics from this user")).toBeVisible();
  await expect(c.getByRole("dialog", { name: "Share Topics" })).toHaveCount(0);
  await expect(c.getByRole("listitem", { name: "Team Notes" })).toBeVisible();
  await expect(c.getByRole("option", { name: "Shared (1)" })).toBeAttached();
  await c.getByRole("button", { name: "Share Topics" }).click();
  await expect(c.getByLabel("Invite code")).toHaveValue("");
  void alice;
  await ctxA.close();
  await ctxC.close();
});

test("the share page signed out asks to sign in; unknown invites say so", async ({ page }) => {
  await page.goto("/share/someone");
  await expect(page.getByRole("heading", { name: "Shared Topics from someone" })).toBeVisible();
  await expect(page.getByText("Sign in to see the topics someone shares.")).toBeVisible();
  await page.goto(`/invite/${"Q".repeat(22)}`);
  await expect(page.getByText("This invite link is not valid. Check the code and try again.")).toBeVisible();
});

test("at 360 px, 32-character usernames and 50-character topic names wrap instead of scrolling sideways", async ({ browser }) => {
  const ctxA = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const ctxB = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const a = await ctxA.newPage();
  const b = await ctxB.newPage();
  const owner = await registerViaApi(a.request, (uniqueName("o") + "x".repeat(32)).slice(0, 32));
  await registerViaApi(b.request, (uniqueName("m") + "y".repeat(32)).slice(0, 32));
  const topicName = "z".repeat(50);
  expect((await a.request.post("/api/topics", { data: { name: topicName } })).status()).toBe(201);
  const invite = await a.request.post("/api/invites");
  expect(invite.status()).toBe(201);
  const { code } = (await invite.json()) as { code: string };

  await b.goto(`/invite/${code}`);
  await expect(b.getByRole("heading", { name: `${owner} invited you` })).toBeVisible();
  await expectNoHorizontalOverflow(b);
  await b.getByRole("button", { name: "Accept Invite" }).click();
  await expect(b.getByRole("listitem", { name: topicName })).toContainText(`from ${owner}`);
  await expectNoHorizontalOverflow(b);
  await b.goto(`/share/${owner}`);
  await expect(b.getByRole("heading", { name: `Shared Topics from ${owner}` })).toBeVisible();
  await expectNoHorizontalOverflow(b);

  await a.goto("/");
  await a.getByRole("button", { name: `Actions for ${topicName}` }).click();
  await a.getByRole("menuitem", { name: "Delete" }).click();
  await expect(a.getByRole("alertdialog")).toContainText(topicName);
  await expectNoHorizontalOverflow(a);
  await a.keyboard.press("Escape");
  await expect(a.getByRole("alertdialog")).toHaveCount(0);
  await ctxA.close();
  await ctxB.close();
});

test("people with access: the owner sees who accepted and removes one; a member leaves; focus stays in the dialog", async ({ browser }) => {
  const [ctxA, ctxB, ctxC] = await Promise.all([browser.newContext(), browser.newContext(), browser.newContext()]);
  const [a, b, c] = await Promise.all([ctxA.newPage(), ctxB.newPage(), ctxC.newPage()]);
  const alice = await registerViaApi(a.request, uniqueName("own"));
  const bob = await registerViaApi(b.request, uniqueName("mem"));
  const carol = await registerViaApi(c.request, uniqueName("mem"));
  const topic = (await (await a.request.post("/api/topics", { data: { name: "Family Chat", accessType: "personal" } })).json()) as { linkSlug: string };
  for (const who of [b, c]) {
    const { code } = (await (await a.request.post("/api/invites")).json()) as { code: string };
    expect((await who.request.post(`/api/invites/${code}/accept`)).status()).toBe(200);
  }

  // The owner finds Share Topics in the Personal view (no detour through "Shared (0)").
  await a.goto("/");
  await expect(a.getByLabel("View")).toHaveValue("personal");
  await a.getByRole("button", { name: "Share Topics" }).click();
  const dialog = a.getByRole("dialog", { name: "Share Topics" });
  const people = dialog.getByRole("region", { name: /People with access/ });
  await expect(people.getByRole("listitem")).toHaveCount(2);
  await expect(people.getByRole("listitem").filter({ hasText: bob })).toHaveCount(1);
  await expect(people.getByRole("listitem").filter({ hasText: carol })).toHaveCount(1);
  await people.getByRole("button", { name: `Remove ${bob}'s access` }).click();
  await expect(a.getByText(`${bob} no longer sees your shared topics.`)).toBeVisible();
  await expect(people.getByRole("listitem")).toHaveCount(1);
  // Focus went to the row that took its place, not the page body.
  await expect(people.getByRole("button", { name: `Remove ${carol}'s access` })).toBeFocused();
  expect((await b.request.get(`/api/topic/${alice}/${topic.linkSlug}`)).status()).toBe(404);

  // carol leaves from her side.
  await c.goto("/");
  await c.getByRole("button", { name: "Share Topics" }).click();
  const mine = c.getByRole("dialog", { name: "Share Topics" }).getByRole("region", { name: /Shared with you/ });
  await mine.getByRole("button", { name: `Leave ${alice}'s shared topics` }).click();
  await expect(c.getByText(`You no longer see ${alice}'s shared topics.`)).toBeVisible();
  await expect(mine.getByText("No one shares topics with you yet.")).toBeVisible();
  await expect(mine.getByRole("heading", { name: "Shared with you" })).toBeFocused();
  await expect(c.getByRole("option", { name: "Shared (0)" })).toBeAttached();

  // The owner's list is empty again after a reload.
  await a.reload();
  await a.getByRole("button", { name: "Share Topics" }).click();
  await expect(a.getByRole("dialog", { name: "Share Topics" }).getByText("No one yet.", { exact: false })).toBeVisible();
  await Promise.all([ctxA.close(), ctxB.close(), ctxC.close()]);
});
