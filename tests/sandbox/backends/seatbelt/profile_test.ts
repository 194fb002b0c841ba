import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  escapeRegex,
  literal,
  protectedNameRegex,
  SEATBELT_LITERAL_MAX_BYTES,
  type SeatbeltProfile,
  seatbeltProfile,
} from "../../../../sandbox/backends/seatbelt/mod.ts";
import type { ConfinedPolicy } from "../../../../sandbox/backends/mod.ts";
import { type MaskFs, secretMasks } from "../../../../sandbox/backends/_masks.ts";
import { BashConfigError } from "../../../../seam/mod.ts";
import { confinedPolicy as policy } from "../_policy.ts";

const FOLDERS = { privateDir: "/run/private", tmpDir: "/run/private/tmp" };

/** macOS's resolution of its two best-known symlinks, `/tmp` and `/var`. */
function macRealpath(path: string): string {
  return path.replace(/^\/(tmp|var)(?=\/|$)/, "/private/$1");
}

/** An SBPL form: an atom, a string (its value unescaped) or a list. */
type Form = string | { string: string } | Form[];

/**
 * The forms of an SBPL profile, read as Seatbelt's Scheme reader reads them:
 * parentheses, strings with `\\` and `\"` escapes, atoms, `;` comments.
 */
function parse(text: string): Form[] {
  const stack: Form[][] = [[]];
  for (let i = 0; i < text.length;) {
    const char = text[i]!;
    if (/\s/.test(char)) i++;
    else if (char === ";") i = text.indexOf("\n", i) === -1 ? text.length : text.indexOf("\n", i);
    else if (char === "(") {
      stack.push([]);
      i++;
    } else if (char === ")") {
      const list = stack.pop()!;
      assert.ok(stack.length > 0, `an unbalanced ")" at ${i}`);
      stack.at(-1)!.push(list);
      i++;
    } else if (char === '"') {
      let value = "";
      for (i++; text[i] !== '"'; i++) {
        assert.ok(i < text.length, "an unterminated string");
        if (text[i] === "\\") i++;
        value += text[i];
      }
      stack.at(-1)!.push({ string: value });
      i++;
    } else {
      const atom = /^[^\s()";]+/.exec(text.slice(i))![0];
      stack.at(-1)!.push(atom);
      i += atom.length;
    }
  }
  assert.equal(stack.length, 1, "unbalanced parentheses");
  return stack[0]!;
}

/** `form` as text again, each string quoted as JSON: the parsed profile, comparable. */
function show(form: Form): string {
  if (typeof form === "string") return form;
  if (Array.isArray(form)) return `(${form.map(show).join(" ")})`;
  return JSON.stringify(form.string);
}

/**
 * The profile's rules as Seatbelt reads them, one line each, every
 * `(param "NAME")` replaced by its value: what the profile means.
 */
function rules({ profile, params }: SeatbeltProfile): string[] {
  const substitute = (form: Form): Form => {
    if (!Array.isArray(form)) return form;
    const [head, name] = form;
    if (head === "param" && typeof name === "object" && !Array.isArray(name)) {
      const value = params[name.string];
      assert.ok(value !== undefined, `parameter ${name.string} is not passed`);
      return { string: value };
    }
    return form.map(substitute);
  };
  return parse(profile).map((form) => show(substitute(form)));
}

/** The index of the one rule that is `expected`; fails when there is none. */
function indexOf(lines: string[], expected: string): number {
  const index = lines.indexOf(expected);
  assert.ok(index >= 0, `no rule ${expected} in:\n${lines.join("\n")}`);
  return index;
}

const build = (overrides: Partial<ConfinedPolicy>): string[] =>
  rules(seatbeltProfile(policy(overrides), FOLDERS, macRealpath));

const WORKSPACE: Partial<ConfinedPolicy> = {
  mode: "workspace-write",
  workspaceRoot: "/srv/ws",
  writableRoots: ["/srv/ws", "/tmp/extra"],
};

describe("seatbeltProfile", () => {
  it("read-only, network deny: closed by default, reads everywhere, writes only in TMPDIR, no network", () => {
    const lines = build({});
    assert.equal(lines[0], "(version 1)");
    assert.equal(lines[1], "(deny default)");
    const readAll = indexOf(lines, "(allow file-read*)");
    const tmp = indexOf(
      lines,
      '(allow file-read* file-write* (subpath "/run/private/tmp"))',
    );
    const privateRead = indexOf(lines, '(allow file-read* (subpath "/run/private"))');
    const privateWrite = indexOf(lines, '(deny file-write* (subpath "/run/private"))');
    assert.ok(readAll < privateRead && privateRead < privateWrite && privateWrite < tmp);
    const writes = lines.filter((line) => /^\(allow [^)]*file-write\*/.test(line));
    assert.deepEqual(writes, ['(allow file-read* file-write* (subpath "/run/private/tmp"))']);
    assert.deepEqual(lines.filter((line) => /network|system-socket/.test(line)), []);
    assert.ok(!lines.some((line) => line.includes('"/srv/ws"')), "the workspace is not writable");
  });

  it("processes: exec and fork, signals and process information within the sandbox only", () => {
    const lines = build({});
    for (
      const rule of [
        "(allow process-exec)",
        "(allow process-fork)",
        "(allow signal (target same-sandbox))",
        "(allow process-info* (target same-sandbox))",
      ]
    ) indexOf(lines, rule);
    const lookups = lines.find((line) => line.startsWith("(allow mach-lookup"));
    assert.ok(lookups?.includes('(global-name "com.apple.system.opendirectoryd.libinfo")'));
    assert.ok(!lookups?.includes("trustd"), "no TLS trust service without network");
  });

  it("workspace-write: the workspace and each writable root writable, resolved, once each", () => {
    const result = seatbeltProfile(policy(WORKSPACE), FOLDERS, macRealpath);
    indexOf(
      rules(result),
      '(allow file-write* (subpath "/srv/ws") (subpath "/private/tmp/extra"))',
    );
    assert.equal(result.params["ROOT_0"], "/srv/ws");
    assert.equal(result.params["ROOT_1"], "/private/tmp/extra");
    assert.equal(result.params["ROOT_2"], undefined, "the workspace listed twice is one root");
  });

  it("workspace-write: the read-only paths refused after the roots are allowed", () => {
    const lines = build({ ...WORKSPACE, readOnlyPaths: ["/srv/ws/.git", "/var/git/target"] });
    const roots = indexOf(
      lines,
      '(allow file-write* (subpath "/srv/ws") (subpath "/private/tmp/extra"))',
    );
    const readOnly = indexOf(
      lines,
      '(deny file-write* (subpath "/srv/ws/.git") (subpath "/private/var/git/target"))',
    );
    assert.ok(roots < readOnly);
  });

  it("protected names, nested ones too, refused anywhere below each root by an escaped regex", () => {
    const lines = build({ ...WORKSPACE, protectedPaths: [".git", ".config/git"] });
    const rule = indexOf(
      lines,
      "(deny file-write* " +
        '(require-all (subpath "/srv/ws") (regex "/\\\\.git(/.*)?$")) ' +
        '(require-all (subpath "/srv/ws") (regex "/\\\\.config/git(/.*)?$")) ' +
        '(require-all (subpath "/private/tmp/extra") (regex "/\\\\.git(/.*)?$")) ' +
        '(require-all (subpath "/private/tmp/extra") (regex "/\\\\.config/git(/.*)?$")))',
    );
    assert.ok(
      rule >
        indexOf(lines, '(allow file-write* (subpath "/srv/ws") (subpath "/private/tmp/extra"))'),
    );
    // What the regex matches, read as a regular expression.
    const git = new RegExp(protectedNameRegex(".git"));
    for (const path of ["/srv/ws/.git", "/srv/ws/.git/config", "/srv/ws/a/b/.git/hooks/x"]) {
      assert.ok(git.test(path), path);
    }
    for (
      const path of ["/srv/ws/.gitignore", "/srv/ws/x.git", "/srv/ws/a/xgit", "/srv/ws/.github/x"]
    ) {
      assert.ok(!git.test(path), path);
    }
    assert.ok(
      new RegExp(protectedNameRegex(".config/git")).test("/srv/ws/home/.config/git/config"),
    );
  });

  it("read-only mode has no protected-name rule: nothing there is writable but TMPDIR", () => {
    assert.ok(
      !build({ protectedPaths: [".git"] }).some((line) => line.includes("(require-all (subpath")),
    );
  });

  it("hidden folders neither read nor written, and the private folder read back after them", () => {
    const lines = build({
      ...WORKSPACE,
      hiddenParents: ["/tmp/shellseam-u501"],
      hiddenDirs: ["/var/other"],
    });
    const hidden = indexOf(
      lines,
      '(deny file-read* file-write* (subpath "/private/tmp/shellseam-u501") (subpath "/private/var/other"))',
    );
    const roots = indexOf(
      lines,
      '(allow file-write* (subpath "/srv/ws") (subpath "/private/tmp/extra"))',
    );
    assert.ok(roots < hidden, "a writable root does not reopen a hidden folder inside it");
    assert.ok(hidden < indexOf(lines, '(allow file-read* (subpath "/run/private"))'));
  });

  it("denyRead masks: last, a folder by subpath and a file by literal, read and write refused", () => {
    const lines = build({
      ...WORKSPACE,
      masks: [
        { path: "/srv/ws/secrets", directory: true, kind: "secret" },
        { path: "/tmp/token", directory: false, kind: "secret" },
      ],
    });
    const masks = indexOf(
      lines,
      '(deny file-read* file-write* (subpath "/srv/ws/secrets") (literal "/private/tmp/token"))',
    );
    assert.equal(masks, lines.length - 1, "nothing after the masks reopens them");
  });

  it("allowRead: the masks carved around an allowed path deny its siblings, not it", () => {
    const tree: Record<string, string[]> = {
      "/": ["home"],
      "/home": ["u"],
      "/home/u": [".ssh"],
      "/home/u/.ssh": ["id_ed25519", "known_hosts"],
    };
    const paths = new Set(
      Object.entries(tree).flatMap((
        [dir, names],
      ) => [dir, ...names.map((name) => `${dir}/${name}`.replace("//", "/"))]),
    );
    const fs: MaskFs = {
      realpath: (path) => paths.has(path) ? path : undefined,
      isDirectory: (path) => path in tree ? true : paths.has(path) ? false : undefined,
      list: (path) => tree[path] ?? [],
    };
    const masks = secretMasks(["~/.ssh"], ["~/.ssh/known_hosts"], "/home/u", [], fs);
    const lines = build({ masks });
    indexOf(lines, '(deny file-read* file-write* (literal "/home/u/.ssh/id_ed25519"))');
    assert.ok(!lines.some((line) => line.includes("known_hosts")));
    assert.ok(!lines.some((line) => line.includes('(subpath "/home/u/.ssh")')));
  });

  it("no pseudo-terminal's data is read, and none opened, without a terminal", () => {
    const lines = build(WORKSPACE);
    const readAll = indexOf(lines, "(allow file-read*)");
    const ttys = indexOf(lines, '(deny file-read-data (regex "^/dev/ttys[0-9]+$"))');
    assert.ok(readAll < ttys);
    assert.deepEqual(lines.filter((line) => /pseudo-tty|ptmx|ttys|\/dev\/tty"/.test(line)), [
      '(deny file-read-data (regex "^/dev/ttys[0-9]+$"))',
    ]);
  });

  it("a terminal: new pseudo-terminals, each the sandbox's own, their ioctls and /dev/tty", () => {
    const lines = build({ ...WORKSPACE, terminal: true });
    const ttys = indexOf(lines, '(deny file-read-data (regex "^/dev/ttys[0-9]+$"))');
    const own = indexOf(
      lines,
      '(allow file-read* file-write* (require-all (regex "^/dev/ttys[0-9]+$") ' +
        '(extension "com.apple.sandbox.pty")))',
    );
    // After the refusal of every terminal's data, so that the sandbox's own are read again.
    assert.ok(ttys < own);
    for (
      const rule of [
        "(allow pseudo-tty)",
        '(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))',
        '(allow file-ioctl (regex "^/dev/ttys[0-9]+$"))',
        '(allow file-read* file-write* file-ioctl (literal "/dev/tty"))',
      ]
    ) assert.ok(indexOf(lines, rule) > ttys, rule);
    // No pseudo-terminal is readable or writable without the extension of the one that opened it.
    const open = lines.filter((line) =>
      /file-(read|write)\*/.test(line) && line.includes("ttys") && !line.includes("extension")
    );
    assert.deepEqual(open, []);
  });

  it("network allow: all of it, and the TLS and DNS services", () => {
    const lines = build({ network: "allow" });
    indexOf(lines, "(allow network*)");
    assert.ok(
      lines.find((line) => line.startsWith("(allow mach-lookup"))?.includes(
        "com.apple.trustd.agent",
      ),
    );
  });

  it("network proxy: outgoing TCP connections to the launch's proxy port on loopback only", () => {
    const lines = build({ network: "proxy", proxyPort: 48123 });
    const network = lines.filter((line) => /network|system-socket/.test(line));
    assert.deepEqual(network, ['(allow network-outbound (remote tcp "localhost:48123"))']);
    // The port is the profile's only way out: no wildcard port, no other host, no bind.
    assert.ok(!lines.some((line) => /localhost:\*|\*:|network-bind|network-inbound/.test(line)));
  });

  it("network proxy with allowed Unix sockets: the proxy's port and the sockets, nothing more", () => {
    const lines = build({ network: "proxy", proxyPort: 48123, unixSockets: true });
    const network = lines.filter((line) => /network|system-socket/.test(line));
    assert.deepEqual(network, [
      '(allow network-outbound (remote tcp "localhost:48123"))',
      "(allow system-socket (socket-domain AF_UNIX))",
      '(allow network-bind (local unix-socket (path-regex "^/")))',
      '(allow network-outbound (remote unix-socket (path-regex "^/")))',
    ]);
  });

  it("network proxy without a valid port is refused", () => {
    for (const port of [undefined, 0, 65536, 1.5]) {
      assert.throws(
        () => build({ network: "proxy", ...(port === undefined ? {} : { proxyPort: port }) }),
        BashConfigError,
        String(port),
      );
    }
  });

  it("network deny with allowed Unix sockets: AF_UNIX sockets by path, the masked ones refused last", () => {
    const lines = build({
      unixSockets: true,
      masks: [{ path: "/var/run/docker.sock", directory: false, kind: "socket" }],
    });
    const open = [
      "(allow system-socket (socket-domain AF_UNIX))",
      '(allow network-bind (local unix-socket (path-regex "^/")))',
      '(allow network-outbound (remote unix-socket (path-regex "^/")))',
    ].map((rule) => indexOf(lines, rule));
    const closed = indexOf(
      lines,
      '(deny network-outbound (remote unix-socket (subpath "/private/var/run/docker.sock")))',
    );
    assert.ok(open.every((index) => index < closed));
    assert.ok(!lines.some((line) => /remote (?:ip|tcp)/.test(line)), "still no IP network");
  });

  it("network deny without allowed Unix sockets: no socket rule at all", () => {
    assert.deepEqual(build({}).filter((line) => /socket|network/.test(line)), []);
  });

  it("a path that tries to close its string cannot change the profile", () => {
    const evil = '/w/a") (allow default) (x "';
    const newline = "/w/b\n(allow default)\\";
    const result = seatbeltProfile(
      policy({
        ...WORKSPACE,
        workspaceRoot: evil,
        writableRoots: [newline],
        readOnlyPaths: [`${evil}/.git`],
        masks: [{ path: `${newline}/s`, directory: true, kind: "secret" }],
      }),
      { privateDir: `${evil}p`, tmpDir: `${evil}p/tmp` },
      (path) => path,
    );
    assert.ok(!result.profile.includes(evil) && !result.profile.includes(newline));
    assert.ok(!result.profile.includes("allow default"));
    const forms = parse(result.profile).map(show);
    assert.ok(!forms.includes("(allow default)"));
    assert.deepEqual(
      Object.values(result.params).filter((value) => value.startsWith("/w/")).sort(),
      [
        evil,
        `${evil}/.git`,
        `${evil}p`,
        `${evil}p/tmp`,
        newline,
        `${newline}/s`,
      ].sort(),
    );
    indexOf(
      rules(result),
      `(allow file-write* (subpath ${JSON.stringify(evil)}) (subpath ${JSON.stringify(newline)}))`,
    );
  });

  it("/tmp/x becomes /private/tmp/x through the resolver it is given", () => {
    const result = seatbeltProfile(
      policy({ mode: "workspace-write", workspaceRoot: "/tmp/x", writableRoots: [] }),
      { privateDir: "/var/folders/p", tmpDir: "/var/folders/p/tmp" },
      macRealpath,
    );
    assert.equal(result.params["ROOT_0"], "/private/tmp/x");
    assert.equal(result.params["TMP"], "/private/var/folders/p/tmp");
    assert.ok(!Object.values(result.params).some((value) => /^\/(tmp|var)\//.test(value)));
  });

  it("a path that does not resolve to an absolute path is refused", () => {
    assert.throws(
      () => seatbeltProfile(policy({}), FOLDERS, (path) => path === "/run/private" ? "run" : path),
      (error: unknown) =>
        error instanceof BashConfigError && /not an absolute path/.test(error.message),
    );
  });

  it("no literal or parameter longer than the limit: at it passes, one byte over is refused", () => {
    assert.equal(SEATBELT_LITERAL_MAX_BYTES, 1000);
    assert.equal(literal("a".repeat(1000)).length, 1002);
    assert.throws(() => literal("a".repeat(1001)), BashConfigError);
    assert.equal(literal('"'.repeat(500)).length, 1002, "escapes count");
    assert.throws(() => literal('"'.repeat(501)), BashConfigError);
    assert.throws(() => literal("é".repeat(501)), BashConfigError, "bytes, not characters");
    // A protected name's regex is the name and 8 bytes more.
    const at = build({ ...WORKSPACE, protectedPaths: ["n".repeat(992)] });
    assert.ok(at.some((line) => line.includes("n".repeat(992))));
    assert.throws(
      () => build({ ...WORKSPACE, protectedPaths: ["n".repeat(993)] }),
      BashConfigError,
    );
    const long = `/${"p".repeat(1000)}`;
    assert.throws(() => build({ ...WORKSPACE, writableRoots: [long] }), /1001 bytes/);
    // Every string of a real profile stays under the limit.
    const { profile } = seatbeltProfile(policy(WORKSPACE), FOLDERS, macRealpath);
    for (const match of profile.matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
      assert.ok(new TextEncoder().encode(match[1]!).length <= SEATBELT_LITERAL_MAX_BYTES);
    }
  });

  it("a protected name with a control character is refused, not put in a regex", () => {
    assert.throws(
      () => build({ ...WORKSPACE, protectedPaths: [".git\n(allow default)"] }),
      (error: unknown) =>
        error instanceof BashConfigError && /control character/.test(error.message),
    );
  });
});

describe("escapeRegex", () => {
  it("makes every regex metacharacter match itself and nothing else", () => {
    for (const char of [".", "[", "]", "(", ")", "{", "}", "*", "+", "?", "^", "$", "|", "\\"]) {
      const name = `a${char}b`;
      const regex = new RegExp(`^${escapeRegex(name)}$`);
      assert.ok(regex.test(name), JSON.stringify(name));
      assert.ok(!regex.test("axb") && !regex.test("ab") && !regex.test(`a${char}${char}b`), char);
    }
    assert.equal(escapeRegex("a-b/c_d"), "a-b/c_d", "others as they are");
  });

  it("survives the string literal: the profile's regex reads back as the escaped name", () => {
    const name = '.a\\b"c[d]';
    const lines = build({ ...WORKSPACE, writableRoots: [], protectedPaths: [name] });
    const rule = lines.find((line) => line.includes("(require-all (subpath"));
    assert.equal(
      rule,
      `(deny file-write* (require-all (subpath "/srv/ws") (regex ${
        JSON.stringify(protectedNameRegex(name))
      })))`,
    );
    assert.ok(new RegExp(protectedNameRegex(name)).test(`/srv/ws/${name}`));
  });
});
