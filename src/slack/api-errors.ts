/** Which failures of a Web API call are worth trying again: a 429 (after Retry-After), and a transient one for calls that may run twice. */
import { ErrorCode } from '@slack/web-api';

interface RateLimitedError {
  code: string;
  retryAfter: number;
}

export function isRateLimited(e: unknown): e is RateLimitedError {
  return !!e && typeof e === 'object' && (e as { code?: string }).code === ErrorCode.RateLimitedError;
}

/**
 * A failure worth retrying. A request error (no answer: timeout, connection reset) may have been
 * carried out anyway, so it is retried only for calls that can safely run twice.
 */
export function isTransient(e: unknown, idempotent: boolean): boolean {
  const code = (e as { code?: string } | null)?.code;
  const status = (e as { statusCode?: number } | null)?.statusCode ?? 0;
  if (code === ErrorCode.HTTPError) return status >= 500;
  return idempotent && code === ErrorCode.RequestError;
}
