import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { escapeXml, logTicks, renderSvg } from "../../bench/_svg.ts";
import { sampleResults } from "./_fixtures.ts";

/**
 * Throws unless `xml` is one well-formed element tree: tags balance and nest,
 * attributes are quoted, and text holds no raw `<` or `&` outside entities.
 */
function assertWellFormed(xml: string): void {
  const stack: string[] = [];
  const token = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/g;
  let roots = 0;
  for (const match of xml.trim().matchAll(token)) {
    const [, close, name, , selfClose, text, stray] = match;
    if (stray !== undefined) throw new Error(`Stray "<" at ${match.index}`);
    if (text !== undefined) {
      if (/&(?!(amp|lt|gt|quot|apos);)/.test(text)) throw new Error(`Raw "&" in "${text}"`);
      if (stack.length === 0 && text.trim() !== "") throw new Error(`Text outside the root`);
      continue;
    }
    if (stack.length === 0) roots++;
    if (close) {
      const open = stack.pop();
      if (open !== name) throw new Error(`</${name}> closes <${open}>`);
    } else if (!selfClose) stack.push(name!);
  }
  if (stack.length > 0) throw new Error(`Unclosed: ${stack.join(", ")}`);
  if (roots !== 1) throw new Error(`Expected one root element, found ${roots}`);
}

describe("renderSvg", () => {
  it("writes one well-formed svg element with the ids and escaped skip reasons", () => {
    const svg = renderSvg(sampleResults());
    assertWellFormed(svg);
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="980" height="\d+"/);
    for (const id of ["foreground-deno", "throughput-deno", "memory-1gib", "sandbox-vs-codex"]) {
      assert.ok(svg.includes(`>${id}</text>`), id);
    }
    assert.ok(svg.includes("no codex &lt;binary&gt; &amp; no luck"));
  });

  it("draws a bar per compared row, a goal mark per goal, and the growth curves", () => {
    const svg = renderSvg(sampleResults());
    const fills = [...svg.matchAll(/<rect [^>]*fill="(#[0-9a-f]{6})"/g)].map((m) => m[1]);
    // met foreground (green), missed throughput (red), memory (green); none for the skipped row
    assert.deepEqual(fills, ["#2e7d32", "#c62828", "#2e7d32"]);
    assert.equal(svg.match(/stroke-dasharray="3,2"/g)?.length, 4); // 3 goal marks + memory goal
    assert.equal(svg.match(/<path /g)?.length, 2);
    assert.equal(svg.match(/<circle [^>]*fill="#000"/g)?.length, 2); // best ratios of 2 rows
    assert.equal(svg.match(/<circle [^>]*fill="#1565c0"/g)?.length, 6); // 3 growth points, 2 charts
  });

  it("still renders with no rows at all", () => {
    assertWellFormed(renderSvg({ ...sampleResults(), cases: [] }));
  });
});

describe("helpers", () => {
  it("escapeXml escapes markup and quotes", () => {
    assert.equal(escapeXml(`a<b>&"c"`), "a&lt;b&gt;&amp;&quot;c&quot;");
  });

  it("logTicks gives 1-2-5 steps within the range", () => {
    assert.deepEqual(logTicks(0.08, 2.5), [0.1, 0.2, 0.5, 1, 2]);
  });
});

describe("assertWellFormed (the test's own checker)", () => {
  it("rejects broken documents", () => {
    assert.throws(() => assertWellFormed("<svg><g></svg>"), /closes/);
    assert.throws(() => assertWellFormed("<svg>a & b</svg>"), /Raw "&"/);
    assert.throws(() => assertWellFormed("<svg/><svg/>"), /one root/);
    assert.throws(() => assertWellFormed("<svg><rect x=1/></svg>"), /Stray|closes/);
  });
});
