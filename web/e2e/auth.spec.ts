import { expect, test } from "@playwright/test";
import { PASSWORD, registerViaApi, signInViaUi, trackOutsideRequests, uniqueName } from "./helpers";

test("sign up, stay signed in across reload, sign out, then sign in (wrong then right password)", { tag: "@main-flow" }, async ({ page }) => {
  const outside = trackOutsideRequests(page);
  const username = uniqueName("signup");
  await page.goto("/");
  await expect(page).toHaveURL(/\/auth$/);
  await expect(page.getByRole("heading", { name: "Welcome back" })).toBeVisible();
  await expect(page.getByText("Sign in to manage your links and analytics")).toBeVisible();

  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page.getByRole("heading", { name: "Create account" })).toBeVisible();
  await expect(page.getByText("Sign up to get started")).toBeVisible();
  await expect(page.getByText("Already have an account?")).toBeVisible();

  // Client-side validation uses the server's schema and messages.
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Email").fill("not-an-email");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page.getByText("Invalid email format")).toBeVisible();

  await page.getByLabel("Email").fill(`${username}@example.test`);
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page.getByText("Account created!")).toBeVisible();
  await expect(page.getByText("Your account has been created successfully.")).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByText(`Welcome, ${username}`)).toBeVisible();

  await page.reload();
  await expect(page.getByText(`Welcome, ${username}`)).toBeVisible();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/auth$/);
  await page.goto("/");
  await expect(page).toHaveURL(/\/auth$/);

  await signInViaUi(page, username, "wrong password!");
  await expect(page.getByText("Error", { exact: true })).toBeVisible();
  await expect(page.getByText("Invalid username or password")).toBeVisible();
  await expect(page).toHaveURL(/\/auth$/);

  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Welcome back!")).toBeVisible();
  await expect(page.getByText("Successfully logged in.")).toBeVisible();
  await expect(page.getByText(`Welcome, ${username}`)).toBeVisible();
  expect(outside).toEqual([]);
});

test("toggling the auth mode resets the form", async ({ page }) => {
  await page.goto("/auth");
  await page.getByLabel("Username").fill("someone");
  await page.getByRole("button", { name: "Sign up" }).click();
  await expect(page.getByLabel("Username")).toHaveValue("");
  await page.getByLabel("Username").fill("someone");
  await page.getByRole("button", { name: "Sign in" }).last().click();
  await expect(page.getByRole("heading", { name: "Welcome back" })).toBeVisible();
  await expect(page.getByLabel("Username")).toHaveValue("");
});

test("a signed-in user visiting /auth is sent to /", async ({ page }) => {
  const username = await registerViaApi(page.request);
  await page.goto("/auth");
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByText(`Welcome, ${username}`)).toBeVisible();
});

test("an unknown path shows the 404 page", async ({ page }) => {
  await page.goto("/this/path/does/not/exist/at-all");
  await expect(page.getByRole("heading", { name: "Page Not Found" })).toBeVisible();
  await expect(page.getByText("The page you're looking for doesn't exist.")).toBeVisible();
});

test("the dark theme persists across reload", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/auth");
  await expect(page.locator("html")).not.toHaveClass(/dark/);
  // The control cycles system → light → dark.
  await page.getByRole("button", { name: /^Theme: System/ }).click();
  await page.getByRole("button", { name: /^Theme: Light/ }).click();
  await expect(page.locator("html")).toHaveClass(/dark/);
  await page.reload();
  await expect(page.locator("html")).toHaveClass(/dark/);
  await expect(page.getByRole("button", { name: /^Theme: Dark/ })).toBeVisible();
});

test("the marketing panel hides on small screens and Learn more goes to /about", async ({ page }) => {
  await page.setViewportSize({ width: 1200, height: 800 });
  await page.goto("/auth");
  const learn = page.getByRole("link", { name: "Learn more" });
  await expect(learn).toBeVisible();
  await expect(page.getByRole("heading", { name: "Custom Short Links" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Detailed Analytics" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Dynamic QR Codes" })).toBeVisible();
  await learn.click();
  await expect(page).toHaveURL(/\/about$/);
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto("/auth");
  await expect(page.getByRole("link", { name: "Learn more" })).toBeHidden();
  // Nothing overflows sideways at 360 px.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
