// The conformance suite against the local executor, under each session strategy.
import { LocalBashExecutor, platformFacts, runtime } from "../../local/mod.ts";
import { describeBashExecutorConformance } from "../../testing/mod.ts";
import { STRATEGIES } from "../local/_helpers.ts";

for (const sessionStrategy of STRATEGIES) {
  describeBashExecutorConformance(
    `LocalBashExecutor (${sessionStrategy})`,
    (options) => new LocalBashExecutor({ sessionStrategy, ...options }),
  );
}

// The path macOS takes, forced on Linux: no /proc, the portable watchdog, every census through ps,
// and sessions through the runtime's own detached spawn (macOS has no setsid program; the
// setsid-binary strategy is Linux's alone, and the suite above runs it).
describeBashExecutorConformance(
  "LocalBashExecutor (portable, detached)",
  (options) =>
    new LocalBashExecutor({
      sessionStrategy: "detached",
      runtime: { ...runtime, platform: platformFacts("linux", false) },
      ...options,
    }),
);
