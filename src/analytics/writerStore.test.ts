import { expect, test } from "bun:test";
import { metadataJson } from "./writerStore";

test("metadataJson writes exactly what JSON.stringify would", () => {
  for (const [visit, source, bot] of [[1, "direct", false], [2, "qr", true], [17, "safari-direct", false], [3, 'odd"source\\', false]] as const) {
    const built = metadataJson(visit, source, bot);
    expect(built).toBe(JSON.stringify({ isReturningVisitor: visit > 1, visitNumber: visit, source, isBot: bot }));
    expect(JSON.parse(built)).toEqual({ isReturningVisitor: visit > 1, visitNumber: visit, source, isBot: bot });
  }
});
