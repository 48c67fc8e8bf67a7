import { type Logger, silentLogger } from '../../log.js';
import type { WrittenTrace } from '../types.js';
import { checkWritten, type SupportJudge } from './check.js';
import { failureOf, retryAfterOf } from './client.js';
import { writerMessages, type WriterInput } from './prompt.js';
import type { ChatClient, WriterFailure, WriterSettings, WrittenAnswer, WrittenSentence } from './types.js';

export interface WriterDeps {
  client: ChatClient;
  judge: SupportJudge;
  settings: WriterSettings;
  log?: Logger;
  now?: () => number;
  /** The support a kept sentence needs, measured for the judge's encoder (SUPPORT_THRESHOLDS). */
  threshold: number;
}

/** Writes answers from a result's evidence and checks them; a failed write is an ordinary outcome. */
export interface AnswerWriter {
  readonly model: string;
  /** `onDraft`: the text so far, as it streams (unchecked: a draft, replaced by the checked text). */
  write(input: WriterInput, onDraft?: (text: string) => void): Promise<WrittenAnswer | WriterFailure>;
}

export function isWritten(w: WrittenAnswer | WriterFailure): w is WrittenAnswer {
  return !('failed' in w);
}

/** A write as a result's trace keeps it: its sentences, kept or dropped and why (none for most failures). */
export function traceOf(w: WrittenAnswer | WriterFailure): WrittenTrace {
  return isWritten(w)
    ? { model: w.model, ms: w.ms, failed: null, sentences: w.sentences }
    : { model: w.model, ms: w.ms, failed: w.failed, sentences: w.sentences ?? [] };
}

/** The write outlasted its time budget. */
class WriterTimeout extends Error {}

/** A 429 is tried again this often at most, each time after its Retry-After, within the budget. */
const RATE_LIMIT_RETRIES = 2;

/** Streams the model's reply within the time budget, calling `onDraft` as it grows. */
async function streamOnce(
  deps: WriterDeps,
  input: WriterInput,
  signal: AbortSignal,
  onDraft?: (text: string) => void,
): Promise<string> {
  let text = '';
  for await (const piece of deps.client.stream(writerMessages(input), { maxTokens: deps.settings.maxTokens, signal })) {
    text += piece;
    onDraft?.(text);
  }
  // the SDK ends a stream quietly when its signal aborts: a cut reply is a time-out, not an answer
  if (signal.aborted) throw new WriterTimeout();
  return text;
}

/** The reply, a 429 waited out (its Retry-After) while the budget allows; anything else fails at once. */
async function streamReply(
  deps: WriterDeps,
  input: WriterInput,
  onDraft: ((text: string) => void) | undefined,
  now: () => number,
): Promise<string> {
  const until = now() + deps.settings.timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const signal = AbortSignal.timeout(Math.max(1, until - now()));
    try {
      return await streamOnce(deps, input, signal, onDraft);
    } catch (e) {
      const after = retryAfterOf(e);
      if (after === null || attempt >= RATE_LIMIT_RETRIES || now() + after * 1000 >= until) throw e;
      await new Promise((resolve) => setTimeout(resolve, after * 1000));
    }
  }
}

/**
 * The writer over a chat endpoint: the prompt is the result's evidence, numbered as the reply lists
 * it; every sentence of the reply is checked against what it cites (check.ts), and only kept ones
 * are shown. A time-out, a 429 that outlasts the budget, a 5xx, a malformed stream, a refusal or
 * nothing kept each gives a failure (the reply stays the extractive one) and one log line, which
 * holds neither the prompt nor the key.
 */
export function answerWriter(deps: WriterDeps): AnswerWriter {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? silentLogger;
  const model = deps.settings.model;
  return {
    model,
    async write(input, onDraft) {
      const t0 = now();
      const failure = (f: Pick<WriterFailure, 'failed' | 'message' | 'sentences'>): WriterFailure => {
        log.warn(
          { writer: model, failed: f.failed, ms: now() - t0 },
          `writer: ${f.message}; the reply is the extractive one`,
        );
        return { model, ms: now() - t0, ...f };
      };
      if (input.evidence.length === 0) return failure({ failed: 'nothing_kept', message: 'no evidence to write from' });
      let text: string;
      try {
        text = await streamReply(deps, input, onDraft, now);
      } catch (e) {
        return failure(failureOf(e, e instanceof WriterTimeout || now() - t0 >= deps.settings.timeoutMs));
      }
      let sentences: WrittenSentence[];
      try {
        sentences = await checkWritten(text, input.evidence, deps.judge, deps.threshold);
      } catch (e) {
        // the check could not run (its encoder gone at shutdown): nothing unchecked is shown
        return failure({
          failed: 'malformed',
          message: `the check could not run (${e instanceof Error ? e.name : typeof e})`,
        });
      }
      const kept = sentences.filter((s) => s.kept);
      if (kept.length === 0)
        return failure({
          failed: 'nothing_kept',
          message: `none of ${sentences.length} written sentences passed the check`,
          sentences,
        });
      return { model, ms: now() - t0, text: kept.map((s) => s.text).join(' '), sentences };
    },
  };
}
