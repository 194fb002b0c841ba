/**
 * Environment variables that make a program load or run code it is handed:
 * `LD_PRELOAD=./x.so ls` runs `x.so`, `PATH=.:$PATH ls` may run `./ls`,
 * `GIT_PAGER=... git log` and `NODE_OPTIONS=--require=./x.js npm test` run
 * what they name. A command that sets one never satisfies an allow rule.
 * The list names the families known to do so; it cannot be complete, which
 * the README says.
 *
 * @module
 */

/** Names that load or run code, matched whole. */
const NAMES = new Set([
  "PATH",
  "ENV",
  "BASH_ENV",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4",
  "PROMPT_COMMAND",
  "IFS",
  "HOME",
  "XDG_CONFIG_HOME",
  "ZDOTDIR",
  "SHELL",
  "PAGER",
  "MANPAGER",
  "EDITOR",
  "VISUAL",
  "BROWSER",
  "SSH_ASKPASS",
  "SUDO_ASKPASS",
  "LESSOPEN",
  "LESSCLOSE",
  "GCONV_PATH",
  "NODE_OPTIONS",
  "NODE_PATH",
  "PYTHONPATH",
  "PYTHONSTARTUP",
  "PYTHONHOME",
  "PYTHONWARNINGS",
  "PYTHONBREAKPOINT",
  "PYTHONUSERBASE",
  "PERL5OPT",
  "PERL5LIB",
  "PERLLIB",
  "PERL5DB",
  "RUBYOPT",
  "RUBYLIB",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "RUSTC",
  "RUSTC_WRAPPER",
  "RUSTC_WORKSPACE_WRAPPER",
  "RUSTDOC",
  "CARGO_HOME",
  "CC",
  "CXX",
  "MAKEFLAGS",
  "DOCKER_CONFIG",
  "KUBECONFIG",
]);

/** Families that load or run code, matched by their start. */
const FAMILIES = /^(LD_|DYLD_|GIT_|npm_config_|NPM_CONFIG_|CARGO_BUILD_|CARGO_TARGET_)/;

/** Names in those families that only name an author, a committer or a folder. */
const PLAIN = /^(GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)|CARGO_TARGET_DIR)$/;

/** Whether setting `name` can make a program load or run other code. */
export function variableRunsCode(name: string): boolean {
  return NAMES.has(name) || (FAMILIES.test(name) && !PLAIN.test(name));
}
