import {
  BashConfigError,
  MANAGED_ENV_PREFIX,
  type ManagedEnv,
  scrubbedParentEnv,
} from "../seam/mod.ts";
import { kindOf } from "../seam/checks.ts";

/**
 * Set for every command so that nothing pages, colours, prompts or opens an
 * editor. They override the inherited environment; a call's `env` overrides them.
 *
 * @example
 * ```ts
 * import { ENV_OVERRIDES } from "@shellseam/bash/local";
 * import assert from "node:assert/strict";
 *
 * assert.equal(ENV_OVERRIDES.GIT_TERMINAL_PROMPT, "0");
 * assert.equal(ENV_OVERRIDES.PAGER, "cat");
 * ```
 */
export const ENV_OVERRIDES: Readonly<Record<string, string>> = Object.freeze({
  NO_COLOR: "1",
  TERM: "dumb",
  PAGER: "cat",
  GIT_PAGER: "cat",
  GIT_TERMINAL_PROMPT: "0",
  GIT_EDITOR: "true",
  DEBIAN_FRONTEND: "noninteractive",
  // No program may wait on a person: prompts fail, editors return at once.
  GH_PROMPT_DISABLED: "1",
  GCM_INTERACTIVE: "never",
  GIT_ASKPASS: "",
  SSH_ASKPASS: "",
  GIT_SSH_COMMAND: "ssh -o BatchMode=yes",
  EDITOR: "false",
  VISUAL: "false",
});

/**
 * The overrides a command in a terminal keeps: those that keep programs from
 * asking for credentials. The rest (`NO_COLOR`, `TERM`, the pagers and
 * editors) are for commands without a terminal, so a terminal's command
 * gets the host's own values of them (and `TERM=xterm-256color`), unless its
 * call's `env` sets them. `DEBIAN_FRONTEND` stays noninteractive: a
 * package's configuration dialog is no place for a model.
 */
const TERMINAL_KEEPS: readonly string[] = [
  "GIT_TERMINAL_PROMPT",
  "DEBIAN_FRONTEND",
  "GH_PROMPT_DISABLED",
  "GCM_INTERACTIVE",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "GIT_SSH_COMMAND",
];

/**
 * What a command in a terminal gets over the environment it inherits: the
 * credential overrides of {@linkcode ENV_OVERRIDES} that stay in a terminal,
 * and `TERM=xterm-256color`.
 *
 * @example
 * ```ts
 * import { TERMINAL_ENV_OVERRIDES } from "./_env.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(TERMINAL_ENV_OVERRIDES.TERM, "xterm-256color");
 * assert.equal(TERMINAL_ENV_OVERRIDES.GIT_TERMINAL_PROMPT, "0");
 * assert.equal("PAGER" in TERMINAL_ENV_OVERRIDES, false);
 * ```
 */
export const TERMINAL_ENV_OVERRIDES: Readonly<Record<string, string>> = Object.freeze({
  ...Object.fromEntries(
    Object.entries(ENV_OVERRIDES).filter(([name]) => TERMINAL_KEEPS.includes(name)),
  ),
  TERM: "xterm-256color",
});

/**
 * What a non-interactive bash acts on at start: files it would source
 * (`BASH_ENV`, `ENV`), options it would turn on (`SHELLOPTS`, `BASHOPTS`,
 * `xtrace` say) and exported functions (`BASH_FUNC_<name>%%`, which can
 * replace any command). Ambient values are dropped; a caller's explicit
 * `env` may still set them.
 */
function changesShellStartup(name: string): boolean {
  return name === "BASH_ENV" || name === "ENV" || name === "SHELLOPTS" || name === "BASHOPTS" ||
    name.startsWith("BASH_FUNC_");
}

/**
 * Flags that keep bash from reading rc files, including the ~/.bashrc it
 * reads when stdin is a socket and SHLVL is unset (its remote-shell guess,
 * which Node's socket stdio triggers).
 */
export const BASH_FLAGS: readonly string[] = ["--norc", "--noprofile"];

/** The part of every command's environment that does not depend on the call. */
export interface BaseEnv {
  env: Readonly<Record<string, string>>;
  /** The environment of a command in a terminal (see `TERMINAL_KEEPS`). */
  terminalEnv: Readonly<Record<string, string>>;
  scrubbed: readonly string[];
}

/** The scrubbed parent environment with the overrides on top; computed once per executor. */
export function baseEnv(): BaseEnv {
  const { env, scrubbed } = scrubbedParentEnv();
  for (const name of Object.keys(env)) {
    if (changesShellStartup(name)) {
      delete env[name];
      scrubbed.push(name);
    }
  }
  return {
    env: { ...env, ...ENV_OVERRIDES },
    terminalEnv: { ...env, ...TERMINAL_ENV_OVERRIDES },
    scrubbed: scrubbed.sort(),
  };
}

/**
 * Throws `BashConfigError` unless `env` and `managedEnv` are objects of
 * strings that an environment can carry, with `env` keys outside the managed
 * namespace and `managedEnv` keys inside it.
 */
export function checkEnv(env: unknown, managedEnv: unknown): void {
  for (const key of Object.keys(checkedEntries("env", env))) {
    if (key.startsWith(MANAGED_ENV_PREFIX)) {
      throw new BashConfigError(
        `"env" key "${key}" uses the managed prefix "${MANAGED_ENV_PREFIX}"; pass it in "managedEnv" instead`,
      );
    }
  }
  for (const key of Object.keys(checkedEntries("managedEnv", managedEnv))) {
    if (!key.startsWith(MANAGED_ENV_PREFIX)) {
      throw new BashConfigError(
        `"managedEnv" key "${key}" lacks the managed prefix "${MANAGED_ENV_PREFIX}"; rename it or pass it in "env"`,
      );
    }
  }
}

function checkedEntries(field: string, value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new BashConfigError(
      `"${field}" must be an object of names to strings; got ${
        value === null ? "null" : Array.isArray(value) ? "an array" : typeof value
      }`,
    );
  }
  const entries = value as Record<string, unknown>;
  for (const [key, entry] of Object.entries(entries)) {
    if (key === "" || key.includes("=") || key.includes("\0")) {
      throw new BashConfigError(
        `"${field}" key ${
          JSON.stringify(key)
        } cannot name an environment variable (it is empty or holds "=" or a NUL byte); rename it`,
      );
    }
    if (typeof entry !== "string") {
      throw new BashConfigError(
        `"${field}" value of "${key}" must be a string; got ${
          kindOf(entry)
        }; convert it with String()`,
      );
    }
    if (entry.includes("\0")) {
      throw new BashConfigError(
        `"${field}" value of "${key}" holds a NUL byte, which an environment variable cannot carry; remove it`,
      );
    }
  }
  return entries;
}

/**
 * base (a terminal's when `terminal`) -> env -> managedEnv (last, so a
 * caller's env cannot displace a managed fact).
 */
export function commandEnv(
  base: BaseEnv,
  env: Record<string, string> | undefined,
  managedEnv: ManagedEnv | undefined,
  terminal = false,
): Record<string, string> {
  return { ...(terminal ? base.terminalEnv : base.env), ...env, ...managedEnv };
}
