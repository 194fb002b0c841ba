/**
 * Test files that run together, in one process: the many light files pay a
 * runtime's start and the library's loading once, not once a file.
 *
 * A file joins a group only when its tests keep no process-wide state (no
 * signal handler, no change to the environment or the working folder that
 * outlives a test, no sandbox that grants a root, nothing left running): its
 * tests then run as in a process of its own, only after another file's. A
 * file that comes to keep such state leaves its group.
 *
 * On Deno, `deno test` starts each test module in a worker of its own and
 * loads the library into it again: a test module costs about 0.35 CPU-s
 * before its first test, 0.05 for `deno run` (one empty test: 0.30 CPU-s
 * and 111 MB). So the Deno leg runs each of {@linkcode TEST_GROUPS} as one
 * test module, written to {@linkcode GROUPS_DIR}, that imports its files in
 * order. Measured on an idle machine, each group in one process against its
 * files in processes of their own: the first, 11.9 CPU-s against 49.3; the
 * other two together, 29.5 against 69.2. `node --test` runs the files of
 * every group in one process (`--test-isolation=none`) beside the others:
 * the first group's files took 20 CPU-s in processes of their own and 3 in
 * one.
 *
 * @module
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT } from "./_tsc.ts";

/**
 * The groups of test files, each run as one test module on Deno, all in one
 * process on Node (see the module's text). The first: unit tests each under
 * a second of CPU in a process of its own, with the files whose every test
 * Node skips (they are Deno's alone, and would cost Node a process for their
 * loading alone). The other two: files of up to about 3 CPU-s each in a
 * process of their own, split so that each takes about as long (about a
 * minute on an idle machine).
 */
export const TEST_GROUPS: readonly (readonly string[])[] = [
  [
    "tests/cli/cold_demo_test.ts",
    "tests/docs_test.ts",
    "tests/e2e/permissions_test.ts",
    "tests/e2e/sandbox_remote_test.ts",
    "tests/engine/binary_test.ts",
    "tests/engine/confined_test.ts",
    "tests/engine/engine_executor_test.ts",
    "tests/engine/host_tools_test.ts",
    "tests/engine/kernel_file_test.ts",
    "tests/engine/listing_test.ts",
    "tests/engine/output_test.ts",
    "tests/engine/paths_test.ts",
    "tests/engine/private_dir_test.ts",
    "tests/engine/session_test.ts",
    "tests/engine/spill_test.ts",
    "tests/engine/start_test.ts",
    "tests/engine/stream_text_test.ts",
    "tests/examples_test.ts",
    "tests/layout_test.ts",
    "tests/node/build_test.ts",
    "tests/remote/frames_test.ts",
    "tests/remote/permissions_test.ts",
    "tests/remote/view_test.ts",
    "tests/sandbox/backends/bwrap/args_test.ts",
    "tests/sandbox/backends/bwrap/reporter_test.ts",
    "tests/sandbox/backends/bwrap/shell_test.ts",
    "tests/sandbox/backends/landlock/deno_test.ts",
    "tests/sandbox/backends/landlock/landlock_test.ts",
    "tests/sandbox/backends/masks_test.ts",
    "tests/sandbox/backends/seatbelt/profile_test.ts",
    "tests/sandbox/backends/seatbelt/seatbelt_test.ts",
    "tests/sandbox/backends/seccomp_test.ts",
    "tests/sandbox/backends/shell_test.ts",
    "tests/sandbox/exposure_test.ts",
    "tests/sandbox/mode_test.ts",
    "tests/sandbox/network/allow_list_test.ts",
    "tests/sandbox/policy_test.ts",
    "tests/sandbox/protected/folder_watch_test.ts",
    "tests/sandbox/protected/kept_shapes_test.ts",
    "tests/sandbox/protected/sweep_test.ts",
    "tests/seam/env_test.ts",
    "tests/seam/errors_test.ts",
    "tests/seam/executor_test.ts",
    "tests/seam/shell_quote_test.ts",
    "tests/tasks/ids_test.ts",
    "tests/tasks/registry_retention_test.ts",
    "tests/tasks/registry_test.ts",
    "tests/tasks/retention_test.ts",
    "tests/testing/entry_test.ts",
    "tests/tool/escalation_test.ts",
    "tests/tool/formats_test.ts",
    "tests/tool/frameworks_test.ts",
    "tests/tool/guidance_test.ts",
    "tests/tool/render/redact_test.ts",
    "tests/tool/render/task_test.ts",
    "tests/tool/render/terminal_test.ts",
    "tests/tool/rules/bypass_test.ts",
    "tests/tool/rules/check_test.ts",
    "tests/tool/schemas/inputs_test.ts",
    "tests/tool/schemas/validate_test.ts",
    "tests/tool/screen_feed_test.ts",
    "tests/tool/screen_test.ts",
    "tests/tool/sdk_types_test.ts",
  ],
  [
    "tests/bench/interleave_test.ts",
    "tests/bench/results_test.ts",
    "tests/bench/stats_test.ts",
    "tests/e2e/background_strays_test.ts",
    "tests/e2e/kill_reach_test.ts",
    "tests/e2e/sandbox_seatbelt_test.ts",
    "tests/engine/command_test.ts",
    "tests/engine/long_command_test.ts",
    "tests/local/executor_basics_test.ts",
    "tests/local/executor_stdin_test.ts",
    "tests/local/executor_strays_test.ts",
    "tests/node/package_test.ts",
    "tests/npm_only/langchain_test.ts",
    "tests/npm_only/xterm_test.ts",
    "tests/runtime/fifo_test.ts",
    "tests/sandbox/ahead_test.ts",
    "tests/sandbox/hidden_folders_test.ts",
    "tests/sandbox/network/proxy_test.ts",
    "tests/sandbox/probe_path_test.ts",
    "tests/sandbox/spill_test.ts",
    "tests/scripts/doc_examples_test.ts",
    "tests/tasks/registry_disposal_test.ts",
    "tests/testing/shared_test.ts",
    "tests/tool/render/binary_output_test.ts",
    "tests/tool/task_hooks_test.ts",
  ],
  [
    "tests/bench/case_test.ts",
    "tests/bench/memory_test.ts",
    "tests/bench/svg_test.ts",
    "tests/e2e/cli_remote_test.ts",
    "tests/engine/ahead_test.ts",
    "tests/engine/announced_start_test.ts",
    "tests/engine/background_spill_test.ts",
    "tests/engine/background_stdin_test.ts",
    "tests/engine/census_test.ts",
    "tests/engine/cgroup_test.ts",
    "tests/engine/fd_exhaustion_test.ts",
    "tests/engine/platform_test.ts",
    "tests/engine/reaper_test.ts",
    "tests/engine/verdict_test.ts",
    "tests/engine/watchdog_test.ts",
    "tests/local/executor_config_test.ts",
    "tests/local/executor_requests_test.ts",
    "tests/runtime/runtime_test.ts",
    "tests/sandbox/backends/bwrap/bwrap_test.ts",
    "tests/sandbox/backends/landlock/launcher_parity_test.ts",
    "tests/sandbox/first_call_test.ts",
    "tests/sandbox/network/bridge_test.ts",
    "tests/sandbox/private_parents_test.ts",
    "tests/sandbox/protected/walk_memory_test.ts",
    "tests/scripts/groups_test.ts",
    "tests/scripts/legs_test.ts",
    "tests/tool/create_test.ts",
    "tests/tool/git_commit_test.ts",
  ],
];

/** Where the groups' test modules are written (git-ignored). */
export const GROUPS_DIR: string = join(ROOT, ".build", "test-groups");

/**
 * Writes one test module for each of `groups` (files relative to `root`) to
 * `dir`, made anew, each of which imports its group's files in order, and
 * returns their paths relative to `root`. Throws, writing nothing, when a
 * group names a file that is not there or that another group names too.
 */
export function writeGroups(
  groups: readonly (readonly string[])[],
  dir: string = GROUPS_DIR,
  root: string = ROOT,
): string[] {
  const files = groups.flat();
  const missing = files.filter((file) => !existsSync(join(root, file)));
  if (missing.length > 0) {
    throw new Error(
      `The test groups name "${missing.join('", "')}", which is not there: ` +
        "take it out of its group in scripts/_groups.ts, or name its new path",
    );
  }
  const twice = files.filter((file, index) => files.indexOf(file) !== index);
  if (twice.length > 0) {
    throw new Error(
      `The test groups name "${twice.join('", "')}" more than once: keep it in one group only`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return groups.map((group, index) => {
    const module = join(dir, `group_${index + 1}_test.ts`);
    const imports = group.map((file) => {
      const path = relative(dir, join(root, file));
      return `import ${JSON.stringify(path.startsWith("../") ? path : `./${path}`)};\n`;
    });
    writeFileSync(
      module,
      "// Written by scripts/_groups.ts: these test files, run as one test module.\n" +
        imports.join(""),
    );
    return relative(root, module);
  });
}
