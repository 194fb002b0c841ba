/**
 * The runners whose grammar the rules know: programs that run the rest of
 * their words as a command (`sudo`, `timeout`, `xargs`, ...), with the
 * options each takes, so that `_wrappers.ts` can find the command behind
 * them.
 *
 * @module
 */
/** Options of a runner: those that take a value, and plain switches. */
export interface RunnerOptions {
  /** Short (`-u`) and long (`--user`) options that take a value (`--user=x` also works). */
  withValue: readonly string[];
  /** Short and long switches. */
  switches: readonly string[];
  /** Options after which nothing is run (a query such as `command -v`). */
  queries?: readonly string[];
  /** Positional words before the command (`timeout`'s duration, `chrt`'s priority). */
  leading?: number;
  /** Short options whose value, if any, is attached (`xargs -i{}`, `-l5`). */
  attachedOnly?: readonly string[];
}

/** Programs that run the rest of their words as a command. */
export const RUNNERS: Record<string, RunnerOptions> = {
  sudo: {
    withValue: ["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group"],
    switches: ["-E", "-H", "-n", "-S", "-k", "-b", "-i", "-s", "-P", "-A", "-B", "--preserve-env"],
    queries: ["-l", "-v", "-K", "-V", "--list", "--validate", "--version"],
  },
  doas: { withValue: ["-u", "-C"], switches: ["-n", "-s"] },
  nohup: { withValue: [], switches: [] },
  exec: { withValue: ["-a"], switches: ["-c", "-l"] },
  command: { withValue: [], switches: ["-p"], queries: ["-v", "-V"] },
  builtin: { withValue: [], switches: [] },
  nice: { withValue: ["-n", "--adjustment"], switches: [] },
  time: { withValue: [], switches: ["-p"] },
  timeout: {
    withValue: ["-s", "-k", "--signal", "--kill-after"],
    switches: ["-v", "--preserve-status", "--foreground", "--verbose"],
    leading: 1,
  },
  stdbuf: { withValue: ["-i", "-o", "-e", "--input", "--output", "--error"], switches: [] },
  setsid: { withValue: [], switches: ["-c", "-f", "-w", "--ctty", "--fork", "--wait"] },
  ionice: { withValue: ["-c", "-n", "--class", "--classdata"], switches: ["-t"] },
  chrt: {
    withValue: ["-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"],
    switches: ["-a", "-b", "-d", "-f", "-i", "-o", "-r", "-R", "-v", "--all-tasks", "--batch"],
    queries: ["-m", "-p", "--max", "--pid"],
    leading: 1,
  },
  taskset: {
    withValue: [],
    switches: ["-a", "-c", "--all-tasks", "--cpu-list"],
    queries: ["-p", "--pid"],
    leading: 1,
  },
  env: {
    withValue: ["-u", "-C", "-a", "--unset", "--chdir", "--argv0"],
    switches: ["-i", "-0", "-v", "--ignore-environment", "--null", "--debug"],
  },
  xargs: {
    withValue: [
      "-I",
      "-n",
      "-P",
      "-L",
      "-d",
      "-a",
      "-s",
      "-E",
      "--max-args",
      "--max-procs",
      "--max-chars",
      "--delimiter",
      "--arg-file",
      "--process-slot-var",
    ],
    switches: [
      "-0",
      "-r",
      "-t",
      "-p",
      "-x",
      "-o",
      "--null",
      "--no-run-if-empty",
      "--verbose",
      "--interactive",
      "--exit",
      "--open-tty",
      "--show-limits",
      "--replace",
      "--eof",
      "--max-lines",
    ],
    attachedOnly: ["-i", "-e", "-l"],
  },
  watch: {
    withValue: ["-n", "-q", "--interval", "--equexit"],
    switches: [
      "-b",
      "-c",
      "-C",
      "-d",
      "-e",
      "-g",
      "-p",
      "-r",
      "-t",
      "-w",
      "-x",
      "--beep",
      "--color",
      "--no-color",
      "--differences",
      "--errexit",
      "--chgexit",
      "--precise",
      "--no-rerun",
      "--no-title",
      "--no-wrap",
      "--exec",
    ],
  },
  parallel: {
    withValue: [
      "-j",
      "-n",
      "-N",
      "-d",
      "-a",
      "-I",
      "--jobs",
      "--max-args",
      "--delimiter",
      "--arg-file",
      "--halt",
      "--colsep",
    ],
    switches: [
      "-k",
      "-X",
      "-m",
      "-q",
      "-0",
      "-u",
      "-r",
      "-v",
      "-t",
      "--keep-order",
      "--quote",
      "--null",
      "--dry-run",
      "--dryrun",
      "--bar",
      "--eta",
      "--progress",
      "--tag",
      "--line-buffer",
      "--lb",
      "--ungroup",
      "--group",
      "--no-run-if-empty",
      "--verbose",
    ],
  },
};
