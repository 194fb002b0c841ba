// The README and docs/: the README's size, links that resolve, an index of
// every page, examples that Node 22 can parse, and the API reference's JSDoc.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { checkoutSkip, ROOT, SOURCE_FOLDERS, sourceFiles } from "./_imports.ts";

/** The README's budget: what a reader takes in on first contact. */
const README_MAX_BYTES = 12 * 1024;

/** README.md and every page in docs/, as root-relative paths. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md")).sort();
  return ["README.md", ...docs.map((name) => join("docs", name))];
}

/** `text` without its fenced code blocks and inline code, where a `[x](y)` is no link. */
function prose(text: string): string {
  return withoutFences(text).replace(/`[^`\n]*`/g, "");
}

/** `text` without its fenced code blocks. */
function withoutFences(text: string): string {
  return text.replace(/^```[\s\S]*?^```$/gm, "");
}

/** The targets of the Markdown links and images in `text`. */
function linkTargets(text: string): string[] {
  return [...prose(text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? "");
}

/** The anchors of `text`'s headings, as GitHub makes them. */
function headingAnchors(text: string): Set<string> {
  // A code span's text counts, as on GitHub: "`@x/y`" makes "xy".
  const headings = [...withoutFences(text).matchAll(/^#{1,6} (.+)$/gm)].map((match) =>
    match[1] ?? ""
  );
  return new Set(
    headings.map((heading) =>
      heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-")
    ),
  );
}

/**
 * What is wrong with each relative link of `text`, the page at `page`
 * (root-relative): a missing file, or a missing heading.
 */
function brokenLinks(
  page: string,
  text: string = readFileSync(join(ROOT, page), "utf8"),
): string[] {
  const broken: string[] = [];
  for (const target of linkTargets(text)) {
    if (/^[a-z]+:/i.test(target)) continue;
    const [path = "", anchor] = target.split("#");
    if (path === "") {
      if (anchor !== undefined && !headingAnchors(text).has(anchor)) {
        broken.push(`${page}: ${target} (no heading #${anchor} on the page)`);
      }
      continue;
    }
    const file = resolve(ROOT, dirname(page), path);
    if (!existsSync(file) || !statSync(file).isFile()) {
      broken.push(`${page}: ${target} (no file ${relative(ROOT, file)})`);
    } else if (anchor !== undefined) {
      if (!file.endsWith(".md")) {
        broken.push(`${page}: ${target} (an anchor in a file not Markdown)`);
      } else if (!headingAnchors(readFileSync(file, "utf8")).has(anchor)) {
        broken.push(`${page}: ${target} (no heading #${anchor} in ${relative(ROOT, file)})`);
      }
    }
  }
  return broken;
}

/** The ```ts blocks of `text` that run (not marked `ignore`). */
function runnableExamples(text: string): string[] {
  return [...text.matchAll(/^```ts([^\n]*)\n([\s\S]*?)^```$/gm)]
    .filter((match) => !(match[1] ?? "").includes("ignore"))
    .map((match) => match[2] ?? "");
}

describe("README and docs/", { skip: checkoutSkip }, () => {
  it("README.md is at most 12 KB", () => {
    const bytes = statSync(join(ROOT, "README.md")).size;
    assert.ok(bytes <= README_MAX_BYTES, `README.md is ${bytes} bytes, over ${README_MAX_BYTES}`);
  });

  it("every relative link in README.md and docs/ resolves to a file, and an anchor to a heading", () => {
    assert.ok(pages().length > 10, `only ${pages().length} pages were found`);
    assert.deepEqual(pages().flatMap((page) => brokenLinks(page)), []);
  });

  it("finds a missing file, a missing heading and a link to a folder, not a link in code", () => {
    const text = "[a](no-such-page.md) [b](sandbox.md#no-such-heading) [c](../tests)\n" +
      "[d](tools.md#escalation) [e](#own-heading) [f](#gone) `[g](in-code.md)`\n" +
      "[h](#with-shellseambashxterm)\n\n## Own heading\n\n## With `@shellseam/bash/xterm`\n";
    assert.deepEqual(brokenLinks("docs/page.md", text).map((line) => line.split(" (")[0]), [
      "docs/page.md: no-such-page.md",
      "docs/page.md: sandbox.md#no-such-heading",
      "docs/page.md: ../tests",
      "docs/page.md: #gone",
    ]);
  });

  it("docs/README.md, the index, links every page in docs/", () => {
    const index = readFileSync(join(ROOT, "docs", "README.md"), "utf8");
    const linked = new Set(linkTargets(index).map((target) => target.split("#")[0]));
    const missing = pages().filter((page) => page.startsWith("docs/") && page !== "docs/README.md")
      .map((page) => page.slice("docs/".length)).filter((page) => !linked.has(page));
    assert.deepEqual(missing, []);
  });

  it("no runnable example uses `using` or `await using`, which Node 22 cannot parse", () => {
    const found = pages().flatMap((page) =>
      runnableExamples(readFileSync(join(ROOT, page), "utf8"))
        .filter((code) => /^\s*(await\s+)?using\s/m.test(code)).map(() => page)
    );
    assert.ok(
      pages().flatMap((page) => runnableExamples(readFileSync(join(ROOT, page), "utf8"))).length >
        10,
    );
    assert.deepEqual(found, []);
  });
});

/**
 * The JSDoc examples of `file` (root-relative) that Node 22 cannot run as
 * written (`using`, `await using`) or that only Deno can (`Deno.`), and whose
 * `@example` title does not name the runtimes they run on.
 */
function unlabelledExamples(
  file: string,
  text: string = readFileSync(join(ROOT, file), "utf8"),
): string[] {
  return [...text.matchAll(/^\s*\* @example(.*)\n\s*\* ```ts[^\n]*\n([\s\S]*?)^\s*\* ```$/gm)]
    .filter((match) => {
      const [, title = "", code = ""] = match;
      if (/\bDeno\./.test(code)) return !title.includes("Deno only");
      return /^\s*\*\s*(await\s+)?using\s/m.test(code) && !title.includes("Deno and Node 24");
    })
    .map((match) => {
      const at = match.index + match[0].indexOf("@example");
      return `${file}:${text.slice(0, at).split("\n").length}`;
    });
}

describe("API reference", { skip: checkoutSkip }, () => {
  it("each JSDoc example that Node 22 cannot run as written names its runtimes", () => {
    const files = [...SOURCE_FOLDERS.flatMap(sourceFiles), "mod.ts"];
    assert.deepEqual(files.flatMap((file) => unlabelledExamples(file)), []);
  });

  it("finds an example with `await using`, `using` or `Deno.` and no runtimes in its title", () => {
    const example = (title: string, line: string) =>
      `/**\n * @example${title}\n * \`\`\`ts\n * ${line}\n * \`\`\`\n */\n`;
    const text = example("", "await using x = f();") + example(" Runs", "using y = g();") +
      example("", "Deno.exit(0);") +
      example(" On Deno and Node 24 (`await using`)", "await using z = h();") +
      example(" Plain", "const w = 1;");
    assert.deepEqual(unlabelledExamples("x.ts", text), ["x.ts:2", "x.ts:8", "x.ts:14"]);
  });

  it("docs/exports.md has a row for each entry point of deno.json, and counts them", () => {
    const { name, exports } = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")) as {
      name: string;
      exports: Record<string, string>;
    };
    const page = readFileSync(join(ROOT, "docs", "exports.md"), "utf8");
    const rows = [...page.matchAll(/^\| `(@shellseam\/[^`]+)` /gm)].map((match) => match[1]);
    assert.deepEqual(
      rows.sort(),
      Object.keys(exports).map((key) => `${name}${key.slice(1)}`).sort(),
    );
    const words = [
      "",
      "One",
      "Two",
      "Three",
      "Four",
      "Five",
      "Six",
      "Seven",
      "Eight",
      "Nine",
      "Ten",
    ];
    assert.match(page, new RegExp(`^${words[rows.length] ?? rows.length} entry points,`, "m"));
  });

  it("deno doc --lint passes on every entry point of deno.json", async () => {
    const { exports } = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")) as {
      exports: Record<string, string>;
    };
    const entries = Object.values(exports);
    assert.ok(entries.length >= 8, `deno.json exports ${entries.length} entry points`);
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["doc", "--lint", ...entries],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
  });
});
