import type { TaskOwner, TaskRegistry, TaskSnapshot } from "../tasks/mod.ts";
import { messageOf } from "../seam/message.ts";

/**
 * A consuming read of one of the owner's tasks, with its terminal screen
 * drawn: a renderer that parses later gives the screen as a promise (see
 * `ScreenRenderer.snapshot`), awaited here so that the render has it, or,
 * when the renderer failed, why it could not be drawn (`screenError`).
 */
export async function readTask(
  tasks: TaskRegistry<unknown>,
  id: string,
  owner: TaskOwner,
): Promise<{ snapshot: TaskSnapshot; output: unknown }> {
  const read = tasks.read(id, owner);
  const output = read.output;
  if (typeof output === "object" && output !== null && "screen" in output) {
    if (output.screen instanceof Promise) {
      try {
        output.screen = await output.screen;
      } catch (error) {
        // The renderer failed while drawing it (see `ScreenFeed.screen`): the render says why.
        delete output.screen;
        Object.assign(output, {
          screenError: messageOf(error),
        });
      }
    }
  }
  return read;
}
