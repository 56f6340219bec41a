// Saved QR styles (issue 25): the happy path, every validation rule (colour contrast included),
// another user's styles, hostile input and the per-user quota. Runs on both backends.
import { describe, expect, test } from "bun:test";
import { HOSTILE, setup } from "../test/helpers";
import { QUOTA_MSG } from "../plans/quotas";
import { STYLE_MSG, colourProblem, contrastRatio, normalHex } from "./schema";
import { NAME_TAKEN } from "./store";

const t = await setup({ MAX_QR_STYLES_PER_USER: "3" });
const alice = await t.signUp("alice");
const bob = await t.signUp("bob");
const STYLES = "/api/qr-styles";

const style = (over: Record<string, unknown> = {}) => ({ name: "Brand", foreground: "#0b3d91", background: "#ffffff", dots: "rounded", corners: "dots", frameText: "Scan me", ...over });
const rowOf = (id: number) => t.database.get<Record<string, unknown>>("SELECT * FROM qr_styles WHERE id = ?", id);
const stylesOf = async (userId: number) => (await t.database.get<{ n: number }>("SELECT COUNT(*) AS n FROM qr_styles WHERE user_id = ?", userId))!.n;
const clear = (userId: number) => t.database.run("DELETE FROM qr_styles WHERE user_id = ?", userId);

describe("colour rules", () => {
  test("WCAG contrast ratios of known pairs", () => {
    expect(contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 5);
    expect(contrastRatio("#ffffff", "#ffffff")).toBeCloseTo(1, 5);
    // WCAG's own example: #777777 on white is just under 4.5:1.
    expect(contrastRatio("#777777", "#ffffff")).toBeCloseTo(4.48, 2);
    expect(contrastRatio("#767676", "#ffffff")).toBeGreaterThanOrEqual(4.5);
  });
  test("refuses too little contrast and light on dark, with the reason", () => {
    expect(colourProblem("#000000", "#ffffff")).toBeNull();
    expect(colourProblem("#767676", "#ffffff")).toBeNull();
    expect(colourProblem("#777777", "#ffffff")).toBe(STYLE_MSG.contrast(4.4));
    expect(colourProblem("#ffff00", "#ffffff")).toMatch(/contrast 1\.0:1; at least 4\.5:1/);
    expect(colourProblem("#ffffff", "#000000")).toBe(STYLE_MSG.inverted);
  });
  test("#rgb and upper case are normalised", () => {
    expect(normalHex(" #ABC ")).toBe("#aabbcc");
    expect(normalHex("#0B3D91")).toBe("#0b3d91");
  });
});

describe("saving, listing, replacing and deleting", () => {
  test("create → 201 with the style; the list has it; replace changes it; delete removes it", async () => {
    await clear(alice.user.id);
    const r = await t.call("POST", STYLES, { body: style({ foreground: "#0B3D91", background: "#FFF" }), cookie: alice.cookie });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ name: "Brand", foreground: "#0b3d91", background: "#ffffff", dots: "rounded", corners: "dots", frameText: "Scan me" });
    expect(typeof r.json.id).toBe("number");
    expect((await rowOf(r.json.id))).toMatchObject({ user_id: alice.user.id, foreground: "#0b3d91", frame_text: "Scan me" });

    const list = await t.call("GET", STYLES, { cookie: alice.cookie });
    expect(list.status).toBe(200);
    expect(list.json).toEqual([r.json]);

    const put = await t.call("PUT", `${STYLES}/${r.json.id}`, { body: style({ name: "Night", dots: "dots", corners: "square", frameText: "" }), cookie: alice.cookie });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ id: r.json.id, name: "Night", dots: "dots", corners: "square", frameText: "" });
    expect((await rowOf(r.json.id))).toMatchObject({ name: "Night", frame_text: "" });

    const del = await t.call("DELETE", `${STYLES}/${r.json.id}`, { cookie: alice.cookie });
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ ok: true });
    expect(await rowOf(r.json.id)).toBeNull();
  });

  test("the list is sorted by name and holds only your styles", async () => {
    await clear(alice.user.id);
    await clear(bob.user.id);
    for (const name of ["Zebra", "apple", "Mango"]) expect((await t.call("POST", STYLES, { body: style({ name }), cookie: alice.cookie })).status).toBe(201);
    expect((await t.call("POST", STYLES, { body: style({ name: "Bob's" }), cookie: bob.cookie })).status).toBe(201);
    const names = (await t.call("GET", STYLES, { cookie: alice.cookie })).json.map((s: { name: string }) => s.name);
    expect(names).toEqual(["Mango", "Zebra", "apple"]);
  });

  test("a name you already use is 409 CONFLICT on create and on rename; nothing changes", async () => {
    await clear(alice.user.id);
    const a = (await t.call("POST", STYLES, { body: style({ name: "One" }), cookie: alice.cookie })).json;
    const b = (await t.call("POST", STYLES, { body: style({ name: "Two" }), cookie: alice.cookie })).json;
    const dup = await t.call("POST", STYLES, { body: style({ name: "One" }), cookie: alice.cookie });
    expect(dup.status).toBe(409);
    expect(dup.json.error).toMatchObject({ code: "CONFLICT", message: NAME_TAKEN });
    const rename = await t.call("PUT", `${STYLES}/${b.id}`, { body: style({ name: "One" }), cookie: alice.cookie });
    expect(rename.status).toBe(409);
    expect((await rowOf(b.id))!.name).toBe("Two");
    expect((await rowOf(a.id))!.name).toBe("One");
    // Another user may use the same name.
    expect((await t.call("POST", STYLES, { body: style({ name: "One" }), cookie: bob.cookie })).status).toBe(201);
    await clear(bob.user.id);
  });

  test("signed out: 401", async () => {
    expect((await t.call("GET", STYLES)).status).toBe(401);
    expect((await t.call("POST", STYLES, { body: style() })).status).toBe(401);
  });
});

describe("validation: 400 with the rule's message, nothing saved", () => {
  type Bad = { name: string; body: Record<string, unknown>; message: string | RegExp; field?: string };
  const bad: Bad[] = [
    { name: "no name", body: style({ name: undefined }), message: STYLE_MSG.name },
    { name: "blank name", body: style({ name: "   " }), message: STYLE_MSG.name },
    { name: "name over 40", body: style({ name: "n".repeat(41) }), message: STYLE_MSG.nameLength },
    { name: "name with a NUL", body: style({ name: HOSTILE.nul }), message: /control characters/ },
    { name: "name as a number", body: style({ name: 7 }), message: "Name must be text" },
    { name: "no foreground", body: style({ foreground: undefined }), message: STYLE_MSG.colour("Foreground") },
    { name: "a colour name", body: style({ foreground: "red" }), message: STYLE_MSG.colour("Foreground") },
    { name: "rgb() colour", body: style({ background: "rgb(0,0,0)" }), message: STYLE_MSG.colour("Background") },
    { name: "colour as CSS injection", body: style({ background: "#fff;background:url(x)" }), message: STYLE_MSG.colour("Background") },
    { name: "8-digit hex", body: style({ foreground: "#00000080" }), message: STYLE_MSG.colour("Foreground") },
    { name: "dot shape star", body: style({ dots: "star" }), message: STYLE_MSG.dots },
    { name: "no dot shape", body: style({ dots: undefined }), message: STYLE_MSG.dots },
    { name: "corner shape as SQL", body: style({ corners: HOSTILE.sql }), message: STYLE_MSG.corners },
    { name: "frame text over 24", body: style({ frameText: "f".repeat(25) }), message: STYLE_MSG.frameLength },
    { name: "frame text huge", body: style({ frameText: HOSTILE.huge }), message: STYLE_MSG.frameLength },
    { name: "frame text with a NUL", body: style({ frameText: HOSTILE.nul }), message: /Frame text must not contain control characters/ },
    { name: "too little contrast", body: style({ foreground: "#aaaaaa", background: "#ffffff" }), message: /too close to scan reliably \(contrast 2\.3:1/, field: "foreground" },
    { name: "same colours", body: style({ foreground: "#336699", background: "#336699" }), message: /contrast 1\.0:1/, field: "foreground" },
    { name: "light on dark", body: style({ foreground: "#ffffff", background: "#000000" }), message: STYLE_MSG.inverted, field: "foreground" },
  ];
  for (const s of bad) {
    test(`${s.name}`, async () => {
      const before = await t.count("qr_styles");
      const r = await t.call("POST", STYLES, { body: s.body, cookie: alice.cookie });
      expect(r.status).toBe(400);
      expect(r.json.error.code).toBe("VALIDATION");
      expect(r.json.error.message).toMatch(s.message);
      if (s.field) expect(Object.keys(r.json.error.fields ?? {})).toContain(s.field);
      expect(await t.count("qr_styles")).toBe(before);
    });
  }

  test("a replace is held to the same rules", async () => {
    await clear(alice.user.id);
    const a = (await t.call("POST", STYLES, { body: style({ name: "Kept" }), cookie: alice.cookie })).json;
    const r = await t.call("PUT", `${STYLES}/${a.id}`, { body: style({ foreground: "#eeeeee" }), cookie: alice.cookie });
    expect(r.status).toBe(400);
    expect((await rowOf(a.id))!.foreground).toBe("#0b3d91");
  });

  test("an emoji counts as one character of frame text; hostile text is kept as text", async () => {
    await clear(alice.user.id);
    const frameText = "👩‍👩‍👧‍👦".repeat(24);
    const r = await t.call("POST", STYLES, { body: style({ name: HOSTILE.script.slice(0, 40), frameText }), cookie: alice.cookie });
    expect(r.status).toBe(201);
    expect((await rowOf(r.json.id))).toMatchObject({ name: HOSTILE.script.slice(0, 40), frame_text: frameText });
    const sqlName = await t.call("POST", STYLES, { body: style({ name: HOSTILE.sql }), cookie: alice.cookie });
    expect(sqlName.status).toBe(201);
    expect(await t.count("users")).toBeGreaterThanOrEqual(2);
  });

  test("malformed JSON, an array body and unknown ids are clear 4xx", async () => {
    const before = await t.count("qr_styles");
    expect((await t.call("POST", STYLES, { raw: "{nope", cookie: alice.cookie })).status).toBe(400);
    expect((await t.call("POST", STYLES, { body: [style()], cookie: alice.cookie })).status).toBe(400);
    for (const id of ["0", "-1", "abc", "99999999999", "1e3", "%00"]) {
      expect((await t.call("PUT", `${STYLES}/${id}`, { body: style({ name: `x${id}` }), cookie: alice.cookie })).status).toBe(404);
      expect((await t.call("DELETE", `${STYLES}/${id}`, { cookie: alice.cookie })).status).toBe(404);
    }
    expect(await t.count("qr_styles")).toBe(before);
  });
});

describe("another user's styles", () => {
  test("cannot be replaced or deleted (404, as if missing) and are never listed", async () => {
    await clear(alice.user.id);
    const a = (await t.call("POST", STYLES, { body: style({ name: "Alice's" }), cookie: alice.cookie })).json;
    const put = await t.call("PUT", `${STYLES}/${a.id}`, { body: style({ name: "Taken over", foreground: "#000000" }), cookie: bob.cookie });
    expect(put.status).toBe(404);
    expect(put.json.error).toMatchObject({ code: "NOT_FOUND", message: "QR style not found" });
    const del = await t.call("DELETE", `${STYLES}/${a.id}`, { cookie: bob.cookie });
    expect(del.status).toBe(404);
    expect(await rowOf(a.id)).toMatchObject({ name: "Alice's", foreground: "#0b3d91", user_id: alice.user.id });
    expect((await t.call("GET", STYLES, { cookie: bob.cookie })).json.some((s: { id: number }) => s.id === a.id)).toBe(false);
  });
});

describe("quota (MAX_QR_STYLES_PER_USER)", () => {
  test("the 3rd is accepted, the 4th refused with 403 QUOTA_EXCEEDED; a delete frees a place", async () => {
    await clear(alice.user.id);
    const ids: number[] = [];
    for (let i = 1; i <= 3; i++) {
      const r = await t.call("POST", STYLES, { body: style({ name: `Q${i}` }), cookie: alice.cookie });
      expect(r.status).toBe(201);
      ids.push(r.json.id);
    }
    const over = await t.call("POST", STYLES, { body: style({ name: "Q4" }), cookie: alice.cookie });
    expect(over.status).toBe(403);
    expect(over.json).toEqual({ error: { code: "QUOTA_EXCEEDED", message: QUOTA_MSG.qrStyles(3) } });
    expect(await stylesOf(alice.user.id)).toBe(3);
    // Replacing does not need a free place.
    expect((await t.call("PUT", `${STYLES}/${ids[0]}`, { body: style({ name: "Q1b" }), cookie: alice.cookie })).status).toBe(200);
    expect((await t.call("DELETE", `${STYLES}/${ids[1]}`, { cookie: alice.cookie })).status).toBe(200);
    expect((await t.call("POST", STYLES, { body: style({ name: "Q4" }), cookie: alice.cookie })).status).toBe(201);
  });

  test("creates sent at once never pass the cap", async () => {
    await clear(alice.user.id);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => t.call("POST", STYLES, { body: style({ name: `Race ${i}` }), cookie: alice.cookie })));
    expect(results.filter((r) => r.status === 201).length).toBe(3);
    expect(results.filter((r) => r.status === 403).length).toBe(5);
    expect(await stylesOf(alice.user.id)).toBe(3);
  });
});
