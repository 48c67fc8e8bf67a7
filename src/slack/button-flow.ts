import type { EngineQueue } from '../engine/queue.js';
import { redactResult } from '../engine/redact.js';
import type { EngineResult } from '../engine/types.js';
import { answerMessage, type Message } from './blocks/answer.js';
import { humanDuration, escapeMrkdwn } from './blocks/text.js';
import { accessOf, EPHEMERAL_TS, type ActionInput, type Origin, type ServiceDeps } from './context.js';
import type { StoredState } from './state/interfaces.js';
import { traceMessage } from './blocks/trace.js';
import { noticeMessage, notHelpfulMessage, reasonOf, workingMessage } from './blocks/notices.js';

/**
 * The buttons on an answer: continue with a suggested hop, stop here, show the trace, and
 * feedback. Each acts once per state, only for the people who asked in the thread where it
 * changes the answer, and tells the clicker privately why not when it cannot.
 */
export class ButtonFlow {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly queue: EngineQueue,
  ) {}

  private parseValue(value: string): { k: string; i?: number } | null {
    try {
      const v = JSON.parse(value) as { k?: unknown; i?: unknown };
      if (typeof v.k !== 'string') return null;
      return typeof v.i === 'number' ? { k: v.k, i: v.i } : { k: v.k };
    } catch {
      return null;
    }
  }

  /** Tells only the clicker, in the channel (or through the response URL for ephemeral messages). */
  private async tell(input: ActionInput, text: string, threadTs?: string, mrkdwn = false): Promise<void> {
    await this.show(input, noticeMessage(text, { mrkdwn }), threadTs);
  }

  /** Shows a message to the clicker only. */
  private async show(input: ActionInput, msg: Message, threadTs?: string): Promise<void> {
    if (input.ephemeral && input.responseUrl) {
      await this.deps.api.respond(input.responseUrl, { response_type: 'ephemeral', replace_original: false, ...msg });
      return;
    }
    await this.deps.api.postEphemeral({
      channel: input.channel,
      user: input.user,
      ...(threadTs && threadTs !== EPHEMERAL_TS && threadTs !== input.messageTs ? { thread_ts: threadTs } : {}),
      ...msg,
    });
  }

  /** The state behind a button, or a polite reason why it is gone. */
  private async stateFor(input: ActionInput): Promise<{ state: StoredState; index: number | undefined } | null> {
    const v = this.parseValue(input.value);
    const state = v ? await this.deps.store.states.getState(v.k) : null;
    if (!v || !state || state.channel !== input.channel) {
      await this.tell(input, 'This button no longer works (its answer was not found). Please ask again.');
      return null;
    }
    if (state.expired) {
      await this.tell(
        input,
        `This answer's buttons have expired (they last ${humanDuration(this.deps.config.slack.stateTtlMs)}). Please ask again.`,
        state.threadTs,
      );
      return null;
    }
    return { state, index: v.i };
  }

  /** Whether `user` took part in the thread of `state` (asked in it). */
  private async isParticipant(state: StoredState, user: string): Promise<boolean> {
    const thread =
      state.threadTs === EPHEMERAL_TS ? null : await this.deps.store.threads.getThread(state.channel, state.threadTs);
    const people = new Set([state.owner, ...(thread?.participants ?? [])]);
    return people.has(user);
  }

  private async replace(input: ActionInput, state: StoredState, msg: Message): Promise<void> {
    if (input.ephemeral && input.responseUrl) {
      await this.deps.api.respond(input.responseUrl, { response_type: 'ephemeral', replace_original: true, ...msg });
    } else {
      await this.deps.api.update({ channel: state.channel, ts: state.messageTs, text: msg.text, blocks: msg.blocks });
    }
  }

  /** A suggested-hop button: resume the chain from the stored state and update the message. */
  async continue(input: ActionInput): Promise<void> {
    const found = await this.stateFor(input);
    if (!found) return;
    const { state, index } = found;
    if (!(await this.isParticipant(state, input.user))) {
      await this.tell(
        input,
        'Only the people who asked in this thread can choose how it continues. Ask your own question with `/ragask`, or mention me.',
        state.threadTs,
      );
      return;
    }
    const suggestion = index === undefined ? undefined : state.result.suggestions[index];
    if (!suggestion) {
      await this.tell(input, 'That suggestion is not part of this answer any more.', state.threadTs);
      return;
    }
    if (!(await this.deps.store.states.useState(state.key, input.user))) {
      const again = await this.deps.store.states.getState(state.key);
      await this.tell(
        input,
        `This answer was already continued${again?.usedBy ? ` by <@${escapeMrkdwn(again.usedBy)}>` : ''}; see the updated message.`,
        state.threadTs,
        true,
      );
      return;
    }
    const origin: Origin = {
      channel: state.channel,
      user: input.user,
      threadTs: state.threadTs,
      isDM: input.channel.startsWith('D'),
    };
    await this.replace(input, state, workingMessage(`continuing with ${suggestion.entity}`));
    // a /ragask answer in the channel keeps showing who asked what
    const header = state.threadTs === state.messageTs ? { echoQuestion: true, askedBy: state.owner } : {};
    try {
      const result = await this.queue.run(() => this.deps.engine.resume(state.result, index!, accessOf(origin)));
      const key = await this.deps.store.states.saveState({
        channel: state.channel,
        threadTs: state.threadTs,
        messageTs: state.messageTs,
        owner: state.owner,
        result,
      });
      await this.replace(input, state, answerMessage(result, { stateKey: key, ...header }));
      if (state.threadTs !== EPHEMERAL_TS)
        await this.deps.store.threads.addTurn(state.channel, state.threadTs, {
          user: input.user,
          question: result.question,
          messageTs: state.messageTs,
          result,
        });
    } catch (e) {
      this.deps.log.error({ err: e }, 'slack: resuming failed');
      // the answer stays as it was, buttons and all, so someone can try again
      await this.deps.store.states.unuseState(state.key);
      await this.replace(
        input,
        state,
        answerMessage(state.result, {
          stateKey: state.key,
          ...header,
          notes: [':warning: _Continuing failed; the error was logged. Try again in a moment._'],
        }),
      ).catch(() => undefined);
    }
  }

  /** "Stop here": keep the answer as it is, without the suggestions. */
  async stop(input: ActionInput): Promise<void> {
    const found = await this.stateFor(input);
    if (!found) return;
    const { state } = found;
    if (!(await this.isParticipant(state, input.user))) {
      await this.tell(input, 'Only the people who asked in this thread can stop it.', state.threadTs);
      return;
    }
    if (!(await this.deps.store.states.useState(state.key, input.user))) {
      await this.tell(input, 'This answer was already continued or stopped.', state.threadTs);
      return;
    }
    const key = await this.deps.store.states.saveState({
      channel: state.channel,
      threadTs: state.threadTs,
      messageTs: state.messageTs,
      owner: state.owner,
      result: { ...state.result, suggestions: [] },
    });
    const header = state.threadTs === state.messageTs ? { echoQuestion: true, askedBy: state.owner } : {};
    await this.replace(
      input,
      state,
      answerMessage(
        { ...state.result, suggestions: [] },
        { stateKey: key, ...header, footer: `Stopped here by <@${escapeMrkdwn(input.user)}>` },
      ),
    );
  }

  /** "Show trace": every hop's state, shown only to whoever asked for it. */
  async trace(input: ActionInput): Promise<void> {
    const found = await this.stateFor(input);
    if (!found) return;
    const msg = traceMessage(
      await this.visibleTo(found.state.result, {
        channel: input.channel,
        user: input.user,
        threadTs: found.state.threadTs,
        isDM: input.channel.startsWith('D'),
      }),
    );
    if (input.ephemeral && input.responseUrl)
      await this.deps.api.respond(input.responseUrl, { response_type: 'ephemeral', replace_original: false, ...msg });
    else
      await this.deps.api.postEphemeral({
        channel: input.channel,
        user: input.user,
        ...(found.state.threadTs !== EPHEMERAL_TS && found.state.threadTs !== found.state.messageTs
          ? { thread_ts: found.state.threadTs }
          : {}),
        ...msg,
      });
  }

  /** A stored result as a given person, where they are, may see it. */
  private async visibleTo(result: EngineResult, origin: Origin): Promise<EngineResult> {
    return redactResult(result, await this.deps.core.access.resolve(accessOf(origin)));
  }

  /** Helpful / not helpful: one entry per answer and person, in the context it was given in. */
  async feedback(input: ActionInput, value: 'helpful' | 'not_helpful'): Promise<void> {
    const found = await this.stateFor(input);
    if (!found) return;
    const r = found.state.result;
    await this.deps.store.feedback.addFeedback({
      stateKey: found.state.key,
      channel: found.state.channel,
      threadTs: found.state.threadTs,
      messageTs: found.state.messageTs,
      user: input.user,
      value,
      question: r.asked ?? r.question,
      answer: r.answer.value ?? r.answer.sentence ?? '(no answer)',
      evidence: r.evidence.slice(0, 10).map((s) => s.chunkId),
    });
    if (value === 'helpful') await this.tell(input, 'Thanks — noted as helpful.', found.state.threadTs);
    else await this.show(input, notHelpfulMessage(found.state.key), found.state.threadTs);
  }

  /** Why an answer was not helpful: kept on the clicker's feedback on it (the sources it cited are stored with it). */
  async feedbackReason(input: ActionInput): Promise<void> {
    const v = reasonOf(input.value);
    const state = v ? await this.deps.store.states.getState(v.stateKey) : null;
    if (!v || !state || state.channel !== input.channel) {
      await this.tell(input, 'This button no longer works (its answer was not found). Please ask again.');
      return;
    }
    const kept = await this.deps.store.feedback.setFeedbackReason(v.stateKey, input.user, v.reason);
    await this.tell(
      input,
      kept ? 'Thanks — that tells us what to fix.' : 'Mark the answer as not helpful first, then say why.',
      state.threadTs,
    );
  }
}
