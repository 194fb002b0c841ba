/**
 * Prepares the Node side of the benchmarks once per run: installs the pinned
 * peers and Node runtime of `bench/node/package.json` (with `npm ci`, from
 * its lock file) when they are missing or older than the lock, builds the
 * library's Node package into `npm/` (`deno task build:npm`), and runs
 * `bench/node/runner.ts` under that Node. None of this is a dependency of
 * the library.
 *
 * @module
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { buildNpm } from "../scripts/build_npm.ts";
import type { NodeAnswer, NodeSide } from "./_case.ts";

/** The folder of the Node-side peers. */
export const PEERS_DIR: string = new URL("./node/", import.meta.url).pathname;

async function command(program: string, args: string[], cwd: string): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(program, {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout);
  if (code !== 0) {
    throw new Error(
      `"${program} ${args.join(" ")}" failed with exit code ${code}: ${
        new TextDecoder().decode(stderr).trim().slice(-2000)
      }`,
    );
  }
  return text;
}

/** Installs the peers with `npm ci` unless node_modules is newer than the lock file. */
async function installPeers(log: (message: string) => void): Promise<void> {
  const lock = join(PEERS_DIR, "package-lock.json");
  const installed = join(PEERS_DIR, "node_modules", ".package-lock.json");
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) return;
  log("installing the pinned peers into bench/node/ (npm ci)");
  await command("npm", ["ci", "--no-audit", "--no-fund"], PEERS_DIR);
}

/**
 * The native Codex binary of the installed `@openai/codex` platform package
 * (`vendor/<target>/bin/codex`), or undefined when none is installed for
 * this platform.
 */
export function codexBinary(): string | undefined {
  const scope = join(PEERS_DIR, "node_modules", "@openai");
  if (!existsSync(scope)) return undefined;
  for (const pkg of readdirSync(scope).filter((name) => name.startsWith("codex-"))) {
    const vendor = join(scope, pkg, "vendor");
    for (const target of existsSync(vendor) ? readdirSync(vendor) : []) {
      const binary = join(vendor, target, "bin", "codex");
      if (existsSync(binary)) return binary;
    }
  }
  return undefined;
}

/** Installs the peers, builds the Node package and returns how to run the Node side. */
export async function prepareNodeSide(log: (message: string) => void): Promise<NodeSide> {
  await installPeers(log);
  const node = join(PEERS_DIR, "node_modules", ".bin", "node");
  if (!existsSync(node)) {
    throw new Error(`The pinned Node is missing at "${node}"; run npm ci there`);
  }
  log("building the Node package into npm/ (deno task build:npm)");
  await buildNpm();
  const runner = join(PEERS_DIR, "runner.ts");
  return {
    node,
    async run(request: Record<string, unknown>): Promise<NodeAnswer> {
      const out = await command(node, [runner, JSON.stringify(request)], PEERS_DIR);
      const last = out.trim().split("\n").at(-1) ?? "";
      return JSON.parse(last) as NodeAnswer;
    },
  };
}
