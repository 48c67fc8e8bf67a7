import Bottleneck from 'bottleneck';
import type { EngineResult } from '../engine/types.js';
import { type AnswerWriter, isWritten, traceOf } from '../engine/writer/index.js';
import type { WriterFailure, WrittenAnswer } from '../engine/writer/types.js';
import type { Logger } from '../log.js';
import type { SlackApi } from './api.js';
import type { Message } from './blocks/answer.js';
import { writerBrokeMessage, writerFailedMessage, writtenMessage } from './blocks/written.js';
import type { Origin } from './context.js';
import type { SlackStateStore } from './state/interfaces.js';

/** Writes at once, and waiting, before an answer stays extractive (see WrittenReply.writes). */
const WRITES_AT_ONCE = 1;
const WRITES_WAITING = 4;
/** A streamed draft grows at most this often (chat.appendStream is paced by Slack's tiers). */
const APPEND_EVERY_MS = 1000;
/** The evidence a written reply may cite: the result's first snippets, as `ragask ask` lists them by default. */
const WRITER_EVIDENCE = 5;
/** The draft's place when the write itself threw (never expected: write() returns its failures). */
const WRITER_BROKE = writerBrokeMessage();

/**
 * The longest the written answer's trace may take to store before the checked text replaces the
 * draft without its trace button (a slow store must not leave the unchecked draft up).
 */
const TRACE_SAVE_MS = 2000;

/** What a streamed draft shows before the model's first words. */
const DRAFT_LEAD = '_Writing an answer from the evidence…_\n\n';

/**
 * A draft's text made inert: it is the model's, unchecked, so it must neither ping (`<!channel>`)
 * nor link (`<https://…>`, a Markdown `[text](url)` or a bare URL).
 */
const inert = (text: string) =>
  text.replace(/</g, '‹').replace(/>/g, '›').replace(/\]\(/g, '] (').replace(/:\/\//g, ':/\u200b/');

/**
 * The optional written answer in Slack, after the extractive one is posted (never before it, never
 * instead of it): a message streamed into the thread as the model writes (chat.startStream /
 * appendStream / stopStream), then replaced by the checked text with its sources linked, or by a
 * note when the writer failed. Every Slack call here is paced by SlackApi; a failure is logged and
 * leaves the extractive answer as it is.
 */
export class WrittenReply {
  /**
   * Writes one at a time (one model server), with a few waiting; past those, an answer stays
   * extractive rather than waiting behind a burst (bottleneck's overflow strategy drops it).
   */
  private readonly writes = new Bottleneck({
    maxConcurrent: WRITES_AT_ONCE,
    highWater: WRITES_WAITING,
    strategy: Bottleneck.strategy.OVERFLOW,
  });

  constructor(
    private readonly deps: {
      api: SlackApi;
      writer: AnswerWriter;
      log: Logger;
      /** Where the written answer's trace is kept, behind its "Show trace" button; none: no button. */
      states?: SlackStateStore['states'];
      now?: () => number;
    },
  ) {}

  /** The written answer for `result`, when the writer has room for it (see `writes`). */
  async stream(origin: Origin, result: EngineResult): Promise<void> {
    await this.writes
      .schedule(() => this.streamNow(origin, result))
      .catch((e: unknown) => {
        if (e instanceof Bottleneck.BottleneckError)
          this.deps.log.warn({ channel: origin.channel }, 'slack: the writer is busy; this answer stays extractive');
        else
          this.deps.log.warn(
            { err: e, channel: origin.channel },
            'slack: the written answer failed; the answer stands',
          );
      });
  }

  private async streamNow(origin: Origin, result: EngineResult): Promise<void> {
    const evidence = result.evidence.slice(0, WRITER_EVIDENCE);
    if (evidence.length === 0) return;
    const { api, writer, log } = this.deps;
    const where = { channel: origin.channel };
    let ts: string;
    try {
      ts = await api.startStream({
        ...where,
        thread_ts: origin.threadTs,
        markdown_text: DRAFT_LEAD,
        recipient_user_id: origin.user,
        ...(origin.teamId ? { recipient_team_id: origin.teamId } : {}),
      });
    } catch (e) {
      log.warn({ err: e, channel: origin.channel }, 'slack: could not start the written answer; the answer stands');
      return;
    }
    const drafts = this.appender(ts, origin.channel);
    const previous = result.followUpOf ? { question: result.followUpOf, answer: null } : null;
    let msg: Message | null = null;
    try {
      const written = await writer.write({ question: result.question, evidence, previous }, drafts.onDraft);
      const key = await this.keepTrace(origin, ts, result, written);
      msg = isWritten(written) ? writtenMessage(written, evidence, key) : writerFailedMessage(written, key);
    } finally {
      // whatever happened, the unchecked draft does not stay: the stream stops, and the checked text
      // (or a note) replaces it
      await this.finish(origin.channel, ts, drafts, msg ?? WRITER_BROKE);
    }
  }

  /**
   * Stores the result with what was written (every sentence, kept or dropped and why) behind the
   * written message, for its "Show trace"; undefined when there is nothing to show or no store, or
   * the store failed or took longer than TRACE_SAVE_MS (the written answer goes out without the button).
   */
  private async keepTrace(
    origin: Origin,
    ts: string,
    result: EngineResult,
    written: WrittenAnswer | WriterFailure,
  ): Promise<string | undefined> {
    const trace = traceOf(written);
    if (!this.deps.states || trace.sentences.length === 0) return undefined;
    const saved = this.deps.states
      .saveState({
        channel: origin.channel,
        threadTs: origin.threadTs,
        messageTs: ts,
        owner: origin.user,
        result: { ...result, written: trace },
      })
      .catch((e: unknown) => {
        this.deps.log.warn({ err: e, channel: origin.channel }, 'slack: could not keep the written trace');
        return undefined;
      });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), TRACE_SAVE_MS);
    });
    return Promise.race([saved, late]).finally(() => clearTimeout(timer));
  }

  /** Stops the stream, then puts the final message in the draft's place; each step on its own. */
  private async finish(
    channel: string,
    ts: string,
    drafts: { settled: () => Promise<void> },
    msg: Message,
  ): Promise<void> {
    const { api, log } = this.deps;
    await drafts.settled();
    await api
      .stopStream({ channel, ts })
      .catch((e: unknown) => log.warn({ err: e, channel }, 'slack: could not stop the draft stream'));
    await api
      .update({ channel, ts, text: msg.text, blocks: msg.blocks })
      .catch((e: unknown) =>
        log.warn({ err: e, channel }, 'slack: could not replace the draft; the answer above stands'),
      );
  }

  /**
   * Appends what the model wrote since the last append, at most every APPEND_EVERY_MS and one at a
   * time: while one is in flight, later text waits for the next (so appends never pile up behind
   * Slack's tier); at the end only the one in flight is waited for.
   */
  private appender(ts: string, channel: string): { onDraft: (text: string) => void; settled: () => Promise<void> } {
    const now = this.deps.now ?? Date.now;
    let sent = 0;
    let last = 0;
    let inFlight: Promise<void> | null = null;
    return {
      onDraft: (text) => {
        if (inFlight || now() - last < APPEND_EVERY_MS || text.length <= sent) return;
        const delta = text.slice(sent);
        sent = text.length;
        last = now();
        inFlight = this.deps.api
          .appendStream({ channel, ts, markdown_text: inert(delta) })
          .catch((e: unknown) => this.deps.log.warn({ err: e, channel }, 'slack: a draft append failed'))
          .finally(() => {
            inFlight = null;
          });
      },
      settled: () => inFlight ?? Promise.resolve(),
    };
  }
}
