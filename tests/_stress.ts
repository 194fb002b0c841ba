import process from "node:process";

/**
 * The size of a stress-sized case (how many commands, tasks or entries):
 * `full` under `deno task test:stress`, which sets `SHELLSEAM_STRESS=1` for
 * the files it runs, and `small` in every other run (`deno task test`, a file
 * run alone). The case says in a comment what its small size still catches.
 */
export function stressSized(small: number, full: number): number {
  return process.env.SHELLSEAM_STRESS === "1" ? full : small;
}
