// The conformance suite against the local executor, under each session strategy (the path macOS
// takes, forced on Linux, is local_portable_test.ts).
import { LocalBashExecutor } from "../../local/mod.ts";
import { describeBashExecutorConformance } from "../../testing/mod.ts";
import { STRATEGIES } from "../local/_helpers.ts";

for (const sessionStrategy of STRATEGIES) {
  describeBashExecutorConformance(
    `LocalBashExecutor (${sessionStrategy})`,
    (options) => new LocalBashExecutor({ sessionStrategy, ...options }),
  );
}
