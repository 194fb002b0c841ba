import { BashConfigError } from "../seam/mod.ts";
import { messageOf } from "../seam/message.ts";
import { runtime } from "../runtime/mod.ts";

/**
 * Throws `BashConfigError` when `error` is the runtime refusing a permission
 * (Deno's message names the flag to add), so that no refused permission
 * reads as "not found" or "nothing there"; returns for any other error.
 */
export function throwIfDenied(error: unknown, doing: string): void {
  if (!runtime.deniedPermission(error)) return;
  throw new BashConfigError(
    `${runtime.name === "deno" ? "Deno" : "Node"} refused a permission needed to ${doing}: ${
      messageOf(error)
    }; grant it (the README's "Deno permissions" lists what each entry point needs)`,
    { cause: error },
  );
}
