// The conformance suite against the sandboxing executor, on each backend
// alone, under workspace-write with the network denied.
import { SandboxBashExecutor } from "../../sandbox/mod.ts";
import {
  type BashExecutorCapabilities,
  describeBashExecutorConformance,
} from "../../testing/mod.ts";
import {
  probeHere,
  SANDBOX_BACKENDS,
  skipUnless,
  tempWorkspace,
  type Workspace,
} from "../sandbox/_fixtures.ts";

/**
 * bwrap's pid namespace ends every process of a command when the shell ends
 * or is killed (its init exits with the shell, and `--die-with-parent` ends
 * the namespace when bwrap is killed), and its init reports a shell killed
 * by a signal as the exit code 128 + N. What it ended with a shell that
 * exited is counted from inside the namespace, so `strays` is checked.
 */
const CAPABILITIES: Record<string, BashExecutorCapabilities> = {
  bwrap: { termGrace: false, drainGrace: false, reportsShellSignal: false },
  landlock: {},
};

/** A sandboxing executor that removes its own workspace when disposed. */
class WorkspaceSandbox extends SandboxBashExecutor {
  readonly #workspace: Workspace;

  constructor(workspace: Workspace, config: ConstructorParameters<typeof SandboxBashExecutor>[0]) {
    super(config);
    this.#workspace = workspace;
  }

  override async [Symbol.asyncDispose](): Promise<void> {
    try {
      await super[Symbol.asyncDispose]();
    } finally {
      this.#workspace[Symbol.dispose]();
    }
  }
}

const statuses = await probeHere();

for (const backend of SANDBOX_BACKENDS) {
  describeBashExecutorConformance(
    `SandboxBashExecutor (${backend})`,
    (options) => {
      const workspace = tempWorkspace();
      return new WorkspaceSandbox(workspace, {
        workspaceRoot: workspace.root,
        defaultMode: "workspace-write",
        network: "deny",
        backends: [backend],
        ...options,
      });
    },
    { capabilities: CAPABILITIES[backend] ?? {}, skip: skipUnless(statuses, backend) },
  );
}
