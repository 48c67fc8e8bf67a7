import type { Config } from '../../config.js';
import { openAIChat, openAISdk } from '../../engine/writer/client.js';
import { noThreshold, SUPPORT_THRESHOLDS } from '../../engine/writer/support.js';
import type { WriterSettings } from '../../engine/writer/types.js';
import { errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import { redactUrl } from '../../store/url.js';
import type { HealthCheck } from '../../store/types.js';

/** How long each of doctor's calls to the writer may take. */
const CHECK_MS = 10_000;
/** A round trip's question and the most it may write: any short reply proves the model answers. */
const ROUND_TRIP = 'Reply with the single word OK.';
const ROUND_TRIP_TOKENS = 8;
/** Models a failed model check names. */
const MODELS_LISTED = 5;

/** What to do about a failed call to the endpoint: the key for a 401/403, else the URL. */
function fixFor(e: unknown): string {
  if (e instanceof openAISdk().APIError && (e.status === 401 || e.status === 403))
    return 'check RAGASK_WRITER_API_KEY (the endpoint refused it)';
  return 'check RAGASK_WRITER_URL (the base URL, e.g. http://127.0.0.1:8080/v1) and that the server runs';
}

/** The endpoint answers and serves the model: one check each, or the first that fails. */
async function endpointChecks(w: WriterSettings): Promise<HealthCheck[]> {
  const client = openAIChat({ ...w, timeoutMs: CHECK_MS });
  let models: string[];
  try {
    models = await client.models(AbortSignal.timeout(CHECK_MS));
  } catch (e) {
    return [{ name: 'writer endpoint', ok: false, detail: `${redactUrl(w.url)}: ${errorMessage(e)}`, fix: fixFor(e) }];
  }
  const endpoint = {
    name: 'writer endpoint',
    ok: true,
    detail: `${redactUrl(w.url)} answers (${models.length} model(s))`,
  };
  if (!models.includes(w.model))
    return [
      endpoint,
      {
        name: 'writer model',
        ok: false,
        detail: `${w.model} is not among the endpoint's models (${models.slice(0, MODELS_LISTED).join(', ') || 'none'})`,
        fix: 'set RAGASK_WRITER_MODEL to a model the endpoint serves',
      },
    ];
  return [endpoint, { name: 'writer model', ok: true, detail: `${w.model} is served` }];
}

/** One short chat, streamed, and how long it took. */
async function roundTrip(w: WriterSettings): Promise<HealthCheck> {
  const client = openAIChat({ ...w, timeoutMs: CHECK_MS });
  const t0 = Date.now();
  try {
    let reply = '';
    const signal = AbortSignal.timeout(CHECK_MS);
    for await (const piece of client.stream([{ role: 'user', content: ROUND_TRIP }], {
      maxTokens: ROUND_TRIP_TOKENS,
      signal,
    }))
      reply += piece;
    if (!reply.trim())
      return {
        name: 'writer round trip',
        ok: false,
        detail: 'the model wrote nothing',
        fix: 'check the model on the server',
      };
    return { name: 'writer round trip', ok: true, detail: `answered in ${Date.now() - t0} ms` };
  } catch (e) {
    return { name: 'writer round trip', ok: false, detail: errorMessage(e), fix: fixFor(e) };
  }
}

/**
 * `ragask doctor`'s lines on the optional answer writer: not configured, or its endpoint, its model
 * and a round trip, each in one line (no key or prompt in any).
 */
export async function writerChecks(config: Config): Promise<HealthCheck[]> {
  const w = config.writer;
  if (!w)
    return [{ name: 'writer', ok: true, detail: 'not configured (RAGASK_WRITER_URL empty): replies are extractive' }];
  const checks = [checkerCheck(config.model), ...(await endpointChecks(w))];
  if (checks.every((c) => c.ok)) checks.push(await roundTrip(w));
  return checks;
}

/** The checker judges support with the encoder in use: it needs a threshold measured for it. */
export function checkerCheck(encoder: string): HealthCheck {
  const threshold = SUPPORT_THRESHOLDS[encoder];
  if (threshold === undefined) return { name: 'writer checker', ok: false, ...noThreshold(encoder) };
  return { name: 'writer checker', ok: true, detail: `${encoder} judges support at cosine ≥ ${threshold}` };
}

/**
 * `ragask serve` with a writer: its endpoint, model and a round trip checked at start. A failure is
 * one clear error line, and ragask serves without the writer (extractive replies) rather than not
 * at all.
 */
export async function writerReady(config: Config, log: Logger): Promise<boolean> {
  if (!config.writer) return false;
  const failed = (await writerChecks(config)).find((c) => !c.ok);
  if (!failed) return true;
  log.error(`${failed.name}: ${failed.detail}; ${failed.fix ?? 'see `ragask doctor`'}; serving without the writer`);
  return false;
}
