/** An operator's request (CLI) that cannot be done; the message says why. Kept free of imports so
 * the CLI entry can recognise it without loading the service. */
export class AccessError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccessError';
  }
}
