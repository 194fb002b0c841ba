/**
 * The CLI package's version, in a module of its own so that
 * `shellseam --version` loads nothing else.
 *
 * @module
 */

/**
 * The CLI package's version (cli/deno.json `version`, which a test holds it
 * to): what `shellseam --version` prints and the MCP server reports.
 */
export const CLI_VERSION = "0.1.0";
