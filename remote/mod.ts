/**
 * The remote executor: runs bash commands on another machine through the
 * `BashExecutor` seam, over one multiplexed OpenSSH connection per
 * executor, with the local executor's contract carried out on the remote
 * side by a small bootstrap sent with each command. {@linkcode RemoteTransport}
 * is the seam for other ways to reach a remote shell (`docker exec -i`,
 * `kubectl exec -i`).
 *
 * @example On Deno and Node 24 (`await using`)
 * ```ts
 * import { SshBashExecutor } from "@shellseam/bash/remote";
 * import { BashConfigError } from "@shellseam/bash/seam";
 * import assert from "node:assert/strict";
 *
 * assert.throws(() => new SshBashExecutor({ host: "-oProxyCommand=evil" }), BashConfigError);
 * await using executor = new SshBashExecutor({ host: "build-1", cwd: "/srv/app" });
 * assert.equal(executor.resolve({ command: "ls", workdir: "src" }).workdir, "/srv/app/src");
 * ```
 *
 * @module
 */
export type { ResolvedSshBashExecutorConfig, SshBashExecutorConfig } from "./_config.ts";
export { SshBashExecutor } from "./executor.ts";
export { type RemoteTransport, SshTransport, type SshTransportOptions } from "./transport.ts";
