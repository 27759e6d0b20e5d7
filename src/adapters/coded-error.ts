/**
 * An error for a condition callers handle: a `code` from the subclass's closed set, a message for
 * people, and the subclass's own `name` (StorageError, PageError, ...).
 */
export class CodedError<Code extends string> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string) {
    super(message);
    this.code = code;
    this.name = new.target.name;
  }
}
