/** The message of a thrown value: an Error's message, anything else as a string. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What kind of value an error message says it got: `typeof`, with null named as such. */
export function kindOf(value: unknown): string {
  return value === null ? "null" : typeof value;
}
