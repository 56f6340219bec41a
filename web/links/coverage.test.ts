// The analytics dialog's sentence on which clicks keep detail rows (retention, the per-address limit).
import { describe, expect, test } from "bun:test";
import { coverage } from "./AnalyticsDialog";
import type { AnalyticsReport } from "./types";

const report = (clickCount: number, detail: AnalyticsReport["detail"]) => ({ clickCount, detail }) as AnalyticsReport;
const at = "2026-11-27T02:07:32.961Z";

describe("coverage", () => {
  test("every click has its row and nothing ages out: no sentence", () => {
    expect(coverage(report(12, { rows: 12, since: at, retentionDays: null, withoutDetail: 0, perSourcePerMinute: 60 }))).toBeNull();
  });
  test("retention of one day and the per-address limit", () => {
    const text = coverage(report(12, { rows: 2, since: at, retentionDays: 1, withoutDetail: 7, perSourcePerMinute: 3 }))!;
    expect(text).toStartWith("Click details cover 2 of 12 clicks since ");
    expect(text).toEndWith(" (details are kept 1 day); 7 were counted without details past 3 a minute from one address. Totals and charts include every click.");
  });
  test("retention of several days, one click without detail, no limit named", () => {
    expect(coverage(report(1_500, { rows: 0, since: null, retentionDays: 30, withoutDetail: 1, perSourcePerMinute: null }))).toBe(
      "Click details cover 0 of 1,500 clicks (details are kept 30 days); 1 was counted without details. Totals and charts include every click.",
    );
  });
});
