/**
 * What kind of trouble a UserError reports, for a caller that acts on it (the CLI's exit code, a
 * test): a closed set, so a misspelt code does not compile.
 *  - config: a setting is missing or bad (src/config.ts)
 *  - model_missing / model_mismatch: a model is not exported, or the store was embedded with another
 *  - not_built: the TypeScript is not compiled (`npm run build`)
 *  - store_corrupt / store_version: the store cannot be read, or is newer than this code
 *  - database_unreachable: RAGASK_DATABASE_URL does not answer
 */
export type ErrorCode =
  | 'user_error'
  | 'config'
  | 'model_missing'
  | 'model_mismatch'
  | 'not_built'
  | 'store_corrupt'
  | 'store_version'
  | 'database_unreachable';

/**
 * An error meant for a person: one line that names the file, line or setting and says what to do.
 * Transports print `message` alone (no stack trace); anything else is a bug and is logged in full.
 */
export class UserError extends Error {
  override readonly name = 'UserError';
  constructor(
    message: string,
    readonly code: ErrorCode = 'user_error',
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
