/**
 * An error meant for a person: one line that names the file, line or setting and says what to do.
 * Transports print `message` alone (no stack trace); anything else is a bug and is logged in full.
 */
export class UserError extends Error {
  override readonly name = 'UserError';
  constructor(
    message: string,
    readonly code: string = 'user_error',
  ) {
    super(message.replace(/\s*\n\s*/g, ' '));
  }
}

export function isUserError(e: unknown): e is UserError {
  return e instanceof UserError;
}

/** The message of any thrown value, on one line. */
export function errorMessage(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/\s*\n\s*/g, ' ').trim();
}
