import { ErrorCode } from '@slack/web-api';
import pRetry from 'p-retry';
import type { Logger } from '../log.js';

/** How long one post to a response_url may take. */
const RESPONSE_URL_TIMEOUT_MS = 10_000;
/** The first backoff after a 5xx (then doubled each time). */
const FIRST_BACKOFF_MS = 500;

/** A response_url's answer that is worth trying again: a 429 (after its Retry-After) or a 5xx. */
class ResponseUrlError extends Error {
  constructor(
    readonly status: number,
    /** Seconds Slack asked to wait (a 429's Retry-After); 0 otherwise. */
    readonly retryAfter: number,
  ) {
    super(status === 429 ? 'rate limited' : `response_url answered HTTP ${status}`);
  }
}

/** One POST of a reply to a response_url. */
async function postOnce(responseUrl: string, body: Record<string, unknown>): Promise<void> {
  const res = await fetch(responseUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(RESPONSE_URL_TIMEOUT_MS),
  });
  if (res.ok) return;
  const after = Number(res.headers.get('retry-after'));
  throw new ResponseUrlError(res.status, res.status === 429 ? (Number.isFinite(after) && after > 0 ? after : 1) : 0);
}

/**
 * A reply through a slash command's or an action's response_url (not a Web API method), retried by
 * p-retry (a well-kept retry library: backoff, attempt hooks, typed contexts) instead of a loop of
 * our own: a 429 waits its Retry-After, a 5xx backs off. A network error is not retried: the post
 * may have been carried out, and a second would show the reply twice. The last failure is thrown
 * with a Slack error code, as a Web API call's would be.
 */
export async function postToResponseUrl(
  responseUrl: string,
  body: Record<string, unknown>,
  opts: { retries: number; log: Logger; onRateLimited: () => void },
): Promise<void> {
  try {
    await pRetry(() => postOnce(responseUrl, body), {
      retries: opts.retries,
      minTimeout: FIRST_BACKOFF_MS,
      factor: 2,
      shouldRetry: ({ error }) => error instanceof ResponseUrlError && (error.status === 429 || error.status >= 500),
      onFailedAttempt: async ({ error }) => {
        if (!(error instanceof ResponseUrlError) || error.status !== 429) return;
        opts.onRateLimited();
        opts.log.warn(
          { retryAfterS: error.retryAfter },
          'slack: response_url rate limited (429); retrying after Retry-After',
        );
        await new Promise((resolve) => setTimeout(resolve, error.retryAfter * 1000));
      },
    });
  } catch (e) {
    if (e instanceof ResponseUrlError)
      throw Object.assign(e, {
        code: e.status === 429 ? ErrorCode.RateLimitedError : ErrorCode.HTTPError,
        statusCode: e.status,
      });
    throw e;
  }
}
