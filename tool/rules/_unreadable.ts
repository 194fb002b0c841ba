/**
 * Thrown inside the command-line reader when a line holds what it does not
 * follow; `readCommandLine` turns it into `{ ok: false, reason }`.
 */
export class Unreadable extends Error {}
