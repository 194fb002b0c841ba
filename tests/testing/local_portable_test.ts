// The conformance suite against the local executor on the path macOS takes, forced on Linux: no
// /proc, the portable watchdog, every census through ps, and sessions through the runtime's own
// detached spawn (macOS has no setsid program; the setsid-binary strategy is Linux's alone, and
// local_test.ts runs it). Deno's alone (see DENO_ONLY_TESTS in scripts/test_node.ts): on Node,
// local_test.ts runs the detached spawn, and the portable pieces have tests of their own.
import { LocalBashExecutor, platformFacts, runtime } from "../../local/mod.ts";
import { describeBashExecutorConformance } from "../../testing/mod.ts";

describeBashExecutorConformance(
  "LocalBashExecutor (portable, detached)",
  (options) =>
    new LocalBashExecutor({
      sessionStrategy: "detached",
      runtime: { ...runtime, platform: platformFacts("linux", false) },
      ...options,
    }),
);
