import { lazyPackage } from '../../lazy-package.js';
import type { ChatClient, ChatMessage, WriterFailure, WriterSettings } from './types.js';

/**
 * The SDK retries nothing itself: its wait for a 429's Retry-After does not heed the abort signal,
 * so a long Retry-After would hold a write past its budget. The writer retries within its budget
 * (index.ts).
 */
const SDK_RETRIES = 0;

/** The `openai` SDK, loaded when a writer is first used (doctor-writer's checks take its errors from here too). */
export const openAISdk = lazyPackage<typeof import('openai')>('openai');

/**
 * An OpenAI-compatible chat endpoint through the official `openai` SDK (a well-kept client: any base
 * URL, streaming, typed errors, retries that honour Retry-After), so llama.cpp's server, Ollama,
 * vLLM and hosted APIs are one code path.
 */
export function openAIChat(settings: WriterSettings): ChatClient {
  const client = new (openAISdk().OpenAI)({
    baseURL: settings.url,
    // local servers take any key; the SDK wants one
    apiKey: settings.apiKey ?? 'none',
    maxRetries: SDK_RETRIES,
    timeout: settings.timeoutMs,
    // the SDK's own logger would print request bodies (the prompt, private evidence) at debug level
    logLevel: 'off',
  });
  return {
    async *stream(messages: readonly ChatMessage[], opts: { maxTokens: number; signal: AbortSignal }) {
      const stream = await client.chat.completions.create(
        { model: settings.model, messages: [...messages], max_tokens: opts.maxTokens, temperature: 0, stream: true },
        { signal: opts.signal },
      );
      for await (const chunk of stream) {
        const text = chunk.choices[0]?.delta?.content;
        if (text) yield text;
      }
    },
    async models(signal: AbortSignal) {
      const out: string[] = [];
      for await (const m of client.models.list({ signal })) out.push(m.id);
      return out;
    },
  };
}

/** A failed write as one of the ordinary failures, with a message that holds no key or prompt. */
export function failureOf(e: unknown, timedOut: boolean): Pick<WriterFailure, 'failed' | 'message'> {
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = openAISdk();
  if (timedOut || e instanceof APIConnectionTimeoutError || e instanceof APIUserAbortError)
    return { failed: 'timeout', message: 'the writer did not finish within its time budget' };
  if (e instanceof APIError && e.status === 429)
    return { failed: 'rate_limited', message: 'the writer endpoint kept answering 429 (rate limited)' };
  if (e instanceof APIError && (e.status ?? 0) >= 500)
    return { failed: 'server_error', message: `the writer endpoint answered HTTP ${e.status}` };
  if (e instanceof APIConnectionError)
    return { failed: 'unreachable', message: 'the writer endpoint could not be reached' };
  if (e instanceof APIError)
    return { failed: 'refused', message: `the writer endpoint refused the request (HTTP ${e.status})` };
  return {
    failed: 'malformed',
    message: `the writer's stream could not be read (${e instanceof Error ? e.name : typeof e})`,
  };
}

/** Seconds a 429 asks to wait (its Retry-After), or null when the failure is not one. */
export function retryAfterOf(e: unknown): number | null {
  const { APIError } = openAISdk();
  if (!(e instanceof APIError) || e.status !== 429) return null;
  const after = Number(e.headers?.get('retry-after'));
  return Number.isFinite(after) && after > 0 ? after : 1;
}
