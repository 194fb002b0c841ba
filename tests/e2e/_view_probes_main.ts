// Runs the view probes (see _view_probes.ts) as a script: arguments
// `<backend> <fixtures JSON>`; prints the table as JSON.
import process from "node:process";
import type { SandboxBackendName } from "../../sandbox/mod.ts";
import { viewTable } from "./_view_probes.ts";

const [backend, fixtures] = process.argv.slice(2);
const table = await viewTable(backend as SandboxBackendName, JSON.parse(fixtures!));
process.stdout.write(JSON.stringify(table));
