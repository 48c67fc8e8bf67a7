import { randomUUID } from 'node:crypto';
import { EngineQueue } from '../engine/queue.js';
import type { EngineResult } from '../engine/types.js';
import type { Logger } from '../log.js';
import type { AccessContext } from '../store/access.js';
import { answerMessage, type Message } from './blocks/answer.js';
import { ButtonFlow } from './button-flow.js';
import { WrittenReply } from './written-reply.js';
import { CommandFlow, type CommandInput } from './command-flow.js';
import { HomeTab } from './home.js';
import type { SourceEvent } from './source/live.js';
import type { SourceAction } from '../store/types.js';
import { isRawDelivery } from './delivery.js';
import { isFollowUp } from './follow-up.js';
import { accessOf, EPHEMERAL_TS, type ActionInput, type Origin, type ServiceDeps } from './context.js';
import { boundQuestion, MAX_QUESTION_CHARS } from '../engine/chain.js';
import { busyMessage, errorMessage, noticeMessage, usageMessage, workingMessage } from './blocks/notices.js';

export type { ActionInput, Origin, ServiceDeps } from './context.js';

export interface QuestionInput extends Origin {
  /** Slack's event id, for answering each delivery once; null for slash commands. */
  eventId: string | null;
  text: string;
  source: 'mention' | 'dm' | 'thread' | 'command';
}

/** Times a question is taken up (first try and the sweep's retries, with backoff) before ragask gives up on it. */
const MAX_ATTEMPTS = 5;
const GAVE_UP =
  'I could not post an answer to your question here: Slack kept refusing my messages. Please ask again in a little while; if it keeps happening, tell the workspace admin.';

const cutNote = `_Your question was longer than ${MAX_QUESTION_CHARS} characters; I used its first ${MAX_QUESTION_CHARS}._`;

/**
 * What the Slack listeners call, free of Bolt: listeners parse a payload and call one method here.
 * Questions (mentions, DMs, follow-ups, recovered deliveries) and /ragask are answered here,
 * through the bounded engine queue, with thread state in the Slack state store and every post through the
 * rate-limited API; the buttons' flows live in button-flow.ts. Shutdown waits for what is tracked.
 */
export class SlackService {
  readonly queue: EngineQueue;
  private botUserId: string | null = null;

  private readonly buttons: ButtonFlow;
  private readonly home: HomeTab;
  private readonly commands: CommandFlow;
  private readonly written: WrittenReply | null;

  constructor(private readonly deps: ServiceDeps) {
    this.queue =
      deps.queue ?? new EngineQueue({ concurrency: deps.config.engineConcurrency, limit: deps.config.queueLimit });
    this.buttons = new ButtonFlow(deps, this.queue);
    this.home = new HomeTab(deps);
    this.written = deps.writer
      ? new WrittenReply({ api: deps.api, writer: deps.writer, log: deps.log, states: deps.store.states })
      : null;
    this.commands = new CommandFlow(deps, this.queue, {
      cleanQuestion: (text) => this.cleanQuestion(text),
      tellBusy: (origin) => this.tellBusy(origin),
      cutNote,
    });
  }

  /** Handlers still working: a shutdown waits for them, so no answer is left half-published. */
  private readonly pending = new Set<Promise<unknown>>();

  /** Runs a handler's work, tracked for drain(). */
  track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    const done = () => this.pending.delete(work);
    work.then(done, done);
    return work;
  }

  /** Waits for the handlers in flight (at most `timeoutMs`). */
  async drain(timeoutMs = 30_000): Promise<void> {
    await Promise.race([Promise.allSettled([...this.pending]), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  }

  /**
   * Answers the questions a previous process received but died before answering (killed, or
   * restarted mid-answer), and those whose handling failed before anything was posted: Slack does
   * not send an acknowledged event again. A delivery recorded before its ack is replayed through
   * Bolt (`replay`); an older row holds the question itself. Either way it is claimed like a new
   * delivery, so it is answered once, in the message already posted for it if there is one.
   * `minIdleMs` spares rows touched that recently (the periodic sweep; a start passes 0).
   */
  async recoverOrphans(replay: (raw: unknown) => Promise<void>, minIdleMs = 0): Promise<number> {
    try {
      const orphans = await this.deps.store.events.orphanedEvents(undefined, minIdleMs);
      for (const o of orphans) {
        this.deps.log.info({ eventId: o.eventId }, 'slack: answering an event left unanswered');
        if (isRawDelivery(o.payload)) await replay(o.payload.raw);
        else await this.handleQuestion({ ...(o.payload as Omit<QuestionInput, 'eventId'>), eventId: o.eventId });
      }
      return orphans.length;
    } finally {
      this.sweeps++;
    }
  }

  /** Recovery sweeps finished so far (with or without work): what a test waits on to know one ran. */
  sweeps = 0;

  /** A delivery recorded before its ack that the listeners leave alone (not a question for ragask). */
  async ignoreEvent(eventId: string | undefined): Promise<void> {
    if (eventId) await this.deps.store.events.ignoreEvent(eventId);
  }

  setBotUserId(id: string | undefined): void {
    if (id) this.botUserId = id;
  }

  private access(origin: Origin): AccessContext {
    return accessOf(origin);
  }

  /** The question text: bot mentions removed, then as the engine reads it (see boundQuestion). */
  cleanQuestion(text: string): { question: string; cut: boolean } {
    let q = text;
    if (this.botUserId) q = q.split(`<@${this.botUserId}>`).join(' ');
    q = q.replace(/^\s*<@[A-Z0-9]+>\s*/, ' ');
    const question = boundQuestion(q);
    return { question, cut: [...q.replace(/\s+/g, ' ').trim()].length > MAX_QUESTION_CHARS };
  }

  mentionsBot(text: string): boolean {
    return !!this.botUserId && text.includes(`<@${this.botUserId}>`);
  }

  /** A plain reply in a thread ragask answered that is addressed to it (see follow-up.ts). */
  async isFollowUp(channel: string, threadTs: string, user: string, text: string): Promise<boolean> {
    return isFollowUp(await this.deps.store.threads.getThread(channel, threadTs), user, text);
  }

  async hasThread(channel: string, threadTs: string): Promise<boolean> {
    return (await this.deps.store.threads.getThread(channel, threadTs)) !== null;
  }

  /** An @-mention, a DM, or a follow-up in a thread ragask answered. */
  handleQuestion(input: QuestionInput): Promise<void> {
    return this.track(this.answerQuestion(input));
  }

  private async answerQuestion(input: QuestionInput): Promise<void> {
    const { store, api } = this.deps;
    const rid = randomUUID().slice(0, 8);
    const log = this.deps.log.child({ rid, channel: input.channel, source: input.source });
    let answerTs: string | null = null;
    let status = false;
    let attempts = 1;
    if (input.eventId) {
      const { eventId: _e, ...payload } = input;
      const claim = await store.events.claimEvent(input.eventId, input.channel, payload);
      if (claim.status === 'duplicate') {
        log.info({ eventId: input.eventId }, 'slack: duplicate delivery ignored');
        return;
      }
      answerTs = claim.messageTs;
      attempts = claim.attempts;
    }
    try {
      const { question, cut } = this.cleanQuestion(input.text);
      if (!question) {
        const ts = await this.post(
          input,
          usageMessage(
            'Ask me a question after the mention, for example: _@ragask which sensor does Project Falcon use?_',
          ),
        );
        if (input.eventId) await store.events.finishEvent(input.eventId, 'answered', ts);
        return;
      }
      const thread = await store.threads.getThread(input.channel, input.threadTs);
      const previous = thread?.turns.at(-1)?.result ?? null;
      // Working: the assistant-thread status in DMs where Slack offers it, else a placeholder
      // message that the answer replaces.
      status = !answerTs && input.isDM && (await this.trySetStatus(input));
      if (answerTs) await api.update({ channel: input.channel, ts: answerTs, ...workingMessage(question) });
      else if (!status) answerTs = await this.post(input, workingMessage(question));
      if (input.eventId && answerTs) await store.events.setEventMessage(input.eventId, answerTs);
      const t0 = performance.now();
      const ctx = this.access(input);
      const result = await this.queue.run(
        () => (previous ? this.deps.engine.followUp(previous, question, ctx) : this.deps.engine.run(question, ctx)),
        () => this.tellBusy(input),
      );
      this.logHops(log, result, performance.now() - t0);
      answerTs = await this.publish(input, answerTs, result, cut);
      if (input.eventId) await store.events.finishEvent(input.eventId, 'answered', answerTs);
      // the written answer comes after the extractive one, on its own time: it never holds this up
      if (this.written) void this.track(this.written.stream(input, result));
    } catch (e) {
      log.error({ err: e }, 'slack: answering failed');
      if (answerTs || status) {
        // the asker saw that ragask was working on it: tell them it failed, in that message or thread
        if (answerTs)
          await api.update({ channel: input.channel, ts: answerTs, ...errorMessage() }).catch(() => undefined);
        else answerTs = await this.post(input, errorMessage()).catch(() => null);
        if (input.eventId) await store.events.finishEvent(input.eventId, 'answered', answerTs);
      } else if (input.eventId && attempts >= MAX_ATTEMPTS) {
        // nothing could be posted, time after time: tell the asker plainly, and stop trying
        log.warn({ eventId: input.eventId, attempts }, 'slack: giving up on a question nothing could be posted for');
        await store.events.finishEvent(input.eventId, 'answered', null);
        await api
          .postEphemeral({
            channel: input.channel,
            user: input.user,
            ...(input.isDM ? {} : { thread_ts: input.threadTs }),
            ...noticeMessage(GAVE_UP),
          })
          .catch(() => undefined);
      } else if (input.eventId) {
        // nothing was posted: the recovery sweep (with backoff), a redelivery or a restart answers it
        await store.events.releaseEvent(input.eventId);
      }
    }
  }

  /**
   * Stores the state behind the answer, then replaces the placeholder with the answer (or posts it,
   * when the assistant status stood in for a placeholder). Returns the answer message's ts.
   */
  private async publish(
    origin: Origin,
    placeholderTs: string | null,
    result: EngineResult,
    cut: boolean,
  ): Promise<string> {
    const { store, api } = this.deps;
    const key = await store.states.saveState({
      channel: origin.channel,
      threadTs: origin.threadTs,
      messageTs: placeholderTs ?? 'pending',
      owner: origin.user,
      result,
    });
    const msg = answerMessage(result, { stateKey: key, notes: cut ? [cutNote] : [] });
    const turn = { user: origin.user, question: result.asked ?? result.question, result };
    if (placeholderTs && (await api.updateBacklogged())) {
      // Slack's update tier is spent (a sustained burst): the answer goes out now as a new message
      // in the thread, and the placeholder points to it once updates are free again
      const messageTs = await this.post(origin, msg);
      await store.states.setStateMessage(key, messageTs);
      await store.threads.addTurn(origin.channel, origin.threadTs, { ...turn, messageTs });
      api.updateWhenIdle({
        channel: origin.channel,
        ts: placeholderTs,
        ...noticeMessage('Answered in the next message of this thread.'),
      });
      return messageTs;
    }
    if (placeholderTs) {
      // the thread knows the turn before the answer shows, so a reply to it is already a follow-up
      await store.threads.addTurn(origin.channel, origin.threadTs, { ...turn, messageTs: placeholderTs });
      await api.update({ channel: origin.channel, ts: placeholderTs, text: msg.text, blocks: msg.blocks });
      return placeholderTs;
    }
    const messageTs = await this.post(origin, msg);
    await store.states.setStateMessage(key, messageTs);
    await store.threads.addTurn(origin.channel, origin.threadTs, { ...turn, messageTs });
    return messageTs;
  }

  /**
   * The queue is full: the asker alone is told (an ephemeral note, Slack's roomier rate tier) that the
   * question waits; it is still answered.
   */
  private async tellBusy(origin: Origin): Promise<void> {
    this.deps.log.warn({ channel: origin.channel, load: this.queue.load }, 'slack: engine queue full; question waits');
    await this.deps.api
      .postEphemeral({
        channel: origin.channel,
        user: origin.user,
        ...(origin.threadTs && origin.threadTs !== EPHEMERAL_TS ? { thread_ts: origin.threadTs } : {}),
        ...busyMessage(),
      })
      .catch((e: unknown) => this.deps.log.warn({ err: e }, 'slack: could not post the busy note'));
  }

  /** null: not tried yet; false: this workspace's app has no assistant threads (use placeholders). */
  private statusAvailable: boolean | null = null;

  private async trySetStatus(origin: Origin): Promise<boolean> {
    if (this.statusAvailable === false) return false;
    try {
      await this.deps.api.setStatus(origin.channel, origin.threadTs, 'is looking through the documents…');
      this.statusAvailable = true;
      return true;
    } catch (e) {
      this.deps.log.info(
        { err: (e as Error).message },
        'slack: assistant thread status unavailable; using placeholder messages',
      );
      this.statusAvailable = false;
      return false;
    }
  }

  private async post(origin: Origin, msg: Message): Promise<string> {
    const r = await this.deps.api.postMessage({
      channel: origin.channel,
      thread_ts: origin.threadTs,
      text: msg.text,
      blocks: msg.blocks,
      unfurl_links: false,
      unfurl_media: false,
    });
    return r.ts;
  }

  private logHops(log: Logger, r: EngineResult, ms: number): void {
    log.info(
      {
        ms: Math.round(ms),
        hops: r.hops.map((h) => ({
          hop: h.hop,
          ms: Math.round(h.timings.totalMs),
          retrieveMs: Math.round(h.timings.retrieveMs),
          snippets: h.snippets.length,
          coherence: h.coherence?.cosine ?? null,
          incomplete: h.incomplete,
        })),
        stop: r.stopReason,
        status: r.answer.status,
        confidence: Number(r.answer.confidence.score.toFixed(2)),
      },
      'slack: answered',
    );
  }

  /**
   * `/ragask …`: help, usage for an empty question, or an answer — in the channel (a new thread, so
   * follow-ups work) or, with -p / RAGASK_SLACK_EPHEMERAL, only to the asker.
   */
  handleCommand(input: CommandInput): Promise<void> {
    return this.track(this.commands.answer(input));
  }

  /** `/ragask sources`: what the current channel (or, in a DM, this user) can see. */
  sourcesMessage(origin: Origin): Promise<Message> {
    return this.commands.sourcesMessage(origin);
  }

  /** The button flows (continue, stop, trace, feedback): see button-flow.ts. */
  handleContinue(input: ActionInput): Promise<void> {
    return this.track(this.buttons.continue(input));
  }

  handleStop(input: ActionInput): Promise<void> {
    return this.track(this.buttons.stop(input));
  }

  handleTrace(input: ActionInput): Promise<void> {
    return this.track(this.buttons.trace(input));
  }

  handleFeedback(input: ActionInput, value: 'helpful' | 'not_helpful'): Promise<void> {
    return this.track(this.buttons.feedback(input, value));
  }

  handleFeedbackReason(input: ActionInput): Promise<void> {
    return this.track(this.buttons.feedbackReason(input));
  }

  /** A message, edit or deletion in a channel whose threads are sources (RAGASK_SLACK_SOURCES). */
  onSourceMessage(event: SourceEvent): void {
    this.deps.sources?.onEvent(event);
  }

  /** Whether no source thread is waiting to be read again (tests wait on it). */
  get sourcesIdle(): boolean {
    return this.deps.sources?.idle ?? true;
  }

  /** The Home tab opened (or reopened): that person's view, published again. */
  publishHome(user: string): Promise<void> {
    return this.track(this.home.publish(user));
  }

  /** Hide or Demote pressed on the Home tab (admins only). */
  handleHomeSourceAction(user: string, action: SourceAction, source: string): Promise<void> {
    return this.track(this.home.flagSource(user, action, source));
  }
}
