/**
 * Raw spawns for the baselines of the Deno-side cases: `Deno.Command` with
 * no library in between, stdout read as a stream (bytes counted, not kept)
 * and stderr drained.
 *
 * @module
 */
import type { BenchContext } from "../_case.ts";
import type { InterleaveOptions } from "../_interleave.ts";

/** Options of a raw spawn. */
export interface RawOptions {
  /** Working directory. */
  cwd?: string;
  /** Extra environment variables. */
  env?: Record<string, string>;
}

/**
 * Spawns `program args` with stdin from /dev/null and both pipes read to the
 * end; resolves with the exit code and the bytes seen on stdout.
 */
export async function rawSpawn(
  program: string,
  args: string[],
  options: RawOptions = {},
): Promise<{ code: number; bytes: number }> {
  const child = new Deno.Command(program, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
  }).spawn();
  let bytes = 0;
  const drainErr = child.stderr.pipeTo(new WritableStream());
  for await (const chunk of child.stdout) bytes += chunk.length;
  await drainErr;
  const { code } = await child.status;
  return { code, bytes };
}

/** Like {@linkcode rawSpawn}, and throws unless the exit code is 0. */
export async function rawSpawnOk(
  program: string,
  args: string[],
  options: RawOptions = {},
): Promise<number> {
  const { code, bytes } = await rawSpawn(program, args, options);
  if (code !== 0) throw new Error(`"${program} ${args.join(" ")}" exited with ${code}`);
  return bytes;
}

/**
 * Why `program` cannot be run here (spawning `program --version` fails), or
 * undefined when it can.
 */
export async function unavailable(program: string): Promise<string | undefined> {
  try {
    const { code } = await rawSpawn(program, ["--version"]);
    return code === 0 ? undefined : `"${program} --version" exited with ${code}`;
  } catch (error) {
    return `"${program}" cannot be run: ${error instanceof Error ? error.message : error}`;
  }
}

/** The warm-up and timed rounds of a case: `full`, or `quick` under `--quick`. */
export function rounds(
  context: BenchContext,
  full: InterleaveOptions,
  quick: InterleaveOptions,
): InterleaveOptions {
  return context.quick ? quick : full;
}
