import type { EngineResult } from '../engine/types.js';
import { type AnswerWriter, isWritten } from '../engine/writer/index.js';
import type { Logger } from '../log.js';
import type { SlackApi } from './api.js';
import { writerFailedMessage, writtenMessage } from './blocks/written.js';
import type { Origin } from './context.js';

/** A streamed draft grows at most this often (chat.appendStream is paced by Slack's tiers). */
const APPEND_EVERY_MS = 1000;
/** The evidence a written reply may cite: the result's first snippets, as `ragask ask` lists them by default. */
const WRITER_EVIDENCE = 5;
/** What a streamed draft shows before the model's first words. */
const DRAFT_LEAD = '_Writing an answer from the evidence…_\n\n';

/** A draft's text made inert: a model's `<!channel>` or `<https://…>` must neither ping nor link. */
const inert = (text: string) => text.replace(/</g, '‹').replace(/>/g, '›');

/**
 * The optional written answer in Slack, after the extractive one is posted (never before it, never
 * instead of it): a message streamed into the thread as the model writes (chat.startStream /
 * appendStream / stopStream), then replaced by the checked text with its sources linked, or by a
 * note when the writer failed. Every Slack call here is paced by SlackApi; a failure is logged and
 * leaves the extractive answer as it is.
 */
export class WrittenReply {
  constructor(private readonly deps: { api: SlackApi; writer: AnswerWriter; log: Logger; now?: () => number }) {}

  async stream(origin: Origin, result: EngineResult): Promise<void> {
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
    const written = await writer.write({ question: result.question, evidence, previous }, drafts.onDraft);
    try {
      await drafts.flushed();
      await api.stopStream({ ...where, ts });
      const msg = isWritten(written) ? writtenMessage(written, evidence) : writerFailedMessage(written);
      await api.update({ ...where, ts, text: msg.text, blocks: msg.blocks });
    } catch (e) {
      log.warn({ err: e, channel: origin.channel }, 'slack: could not finish the written answer; the answer stands');
    }
  }

  /** Appends what the model wrote since the last append, at most every APPEND_EVERY_MS, in order. */
  private appender(ts: string, channel: string): { onDraft: (text: string) => void; flushed: () => Promise<void> } {
    const now = this.deps.now ?? Date.now;
    let sent = 0;
    let last = 0;
    let chain: Promise<void> = Promise.resolve();
    const append = (text: string) => {
      const delta = text.slice(sent);
      if (!delta) return;
      sent = text.length;
      last = now();
      chain = chain
        .then(() => this.deps.api.appendStream({ channel, ts, markdown_text: inert(delta) }))
        .catch((e: unknown) => this.deps.log.warn({ err: e, channel }, 'slack: a draft append failed'));
    };
    return {
      onDraft: (text) => {
        if (now() - last >= APPEND_EVERY_MS) append(text);
      },
      flushed: () => chain,
    };
  }
}
