import type { EngineQueue } from '../engine/queue.js';
import { answerMessage, type Message } from './blocks/answer.js';
import { accessOf, EPHEMERAL_TS, type Origin, type ServiceDeps } from './context.js';
import { errorMessage, usageMessage, workingMessage } from './blocks/notices.js';
import { escapeMrkdwn } from './blocks/text.js';

/** A `/ragask` command as its listener hands it over. */
export interface CommandInput {
  channel: string;
  user: string;
  text: string;
  responseUrl: string;
  isDM: boolean;
  teamId?: string;
}

/** What the command flow borrows from the service: the question as the engine reads it, and the busy note. */
export interface CommandHooks {
  cleanQuestion(text: string): { question: string; cut: boolean };
  tellBusy(origin: Origin): Promise<void>;
  cutNote: string;
}

const USAGE = /^(help|-h|--help|\?)$/i;
const SOURCES = /^sources$/i;
/** `-p`/`--private`: only the asker sees the answer; `-c`/`--channel`: the channel does. */
const VISIBILITY_FLAG = /^(-p|--private|-c|--channel)(?:\s+|$)/i;
const PRIVATE_FLAG = /^(-p|--private)/i;
/** Documents listed by `/ragask sources` before "…and N more". */
const SOURCES_LISTED = 40;
/** Slack's limit on a section's text, less room for the "more" line. */
const SECTION_TEXT_MAX = 2990;

/**
 * `/ragask`: usage, `sources`, or a question answered in the channel (a message of its own that
 * holds the thread) or to the asker only (through the command's response_url).
 */
export class CommandFlow {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly queue: EngineQueue,
    private readonly hooks: CommandHooks,
  ) {}

  async answer(input: CommandInput): Promise<void> {
    const { api, config } = this.deps;
    let text = input.text.trim();
    if (!text || USAGE.test(text))
      return this.usage(input, text ? undefined : 'Ask me a question: `/ragask <question>`');
    if (SOURCES.test(text)) {
      const origin = { channel: input.channel, user: input.user, threadTs: '', isDM: input.isDM };
      await api.respond(input.responseUrl, { response_type: 'ephemeral', ...(await this.sourcesMessage(origin)) });
      return;
    }
    let ephemeral = config.slack.ephemeral;
    const flag = VISIBILITY_FLAG.exec(text);
    if (flag) {
      ephemeral = PRIVATE_FLAG.test(flag[1]!);
      text = text.slice(flag[0].length);
    }
    const { question, cut } = this.hooks.cleanQuestion(text);
    // a flag with nothing (or only control characters) after it: usage, to the asker only
    if (!question) return this.usage(input, 'Ask me a question: `/ragask <question>`');
    const notes = cut ? [this.hooks.cutNote] : [];
    if (!ephemeral && (await this.answerInChannel(input, question, notes))) return;
    await this.answerToAsker(input, question, notes);
  }

  private async usage(input: CommandInput, lead: string | undefined): Promise<void> {
    await this.deps.api.respond(input.responseUrl, { response_type: 'ephemeral', ...usageMessage(lead) });
  }

  /** Answers in a message of its own in the channel; false when ragask cannot post there. */
  private async answerInChannel(input: CommandInput, question: string, notes: string[]): Promise<boolean> {
    const { api, log, store } = this.deps;
    let ts: string | null = null;
    try {
      ts = (await api.postMessage({ channel: input.channel, ...workingMessage(question), unfurl_links: false })).ts;
    } catch (e) {
      log.warn({ err: e, channel: input.channel }, 'slack: cannot post in this channel; answering the asker only');
    }
    if (!ts) return false;
    const origin = originOf(input, ts);
    try {
      const result = await this.queue.run(
        () => this.deps.engine.run(question, accessOf(origin)),
        () => this.hooks.tellBusy(origin),
      );
      const where = { channel: input.channel, threadTs: ts, messageTs: ts };
      const key = await store.states.saveState({ ...where, owner: input.user, result });
      const msg = answerMessage(result, { stateKey: key, echoQuestion: true, askedBy: input.user, notes });
      await store.threads.addTurn(input.channel, ts, { user: input.user, question, messageTs: ts, result });
      await api.update({ channel: input.channel, ts, text: msg.text, blocks: msg.blocks });
    } catch (e) {
      log.error({ err: e }, 'slack: /ragask failed');
      await api.update({ channel: input.channel, ts, ...errorMessage() }).catch(() => undefined);
    }
    return true;
  }

  /** Only the asker sees it: through the command's response_url. */
  private async answerToAsker(input: CommandInput, question: string, notes: string[]): Promise<void> {
    const { api, log, store } = this.deps;
    await api.respond(input.responseUrl, { response_type: 'ephemeral', ...workingMessage(question) });
    const origin = originOf(input, EPHEMERAL_TS);
    try {
      const result = await this.queue.run(() => this.deps.engine.run(question, accessOf(origin)));
      const where = { channel: input.channel, threadTs: EPHEMERAL_TS, messageTs: EPHEMERAL_TS };
      const key = await store.states.saveState({ ...where, owner: input.user, result });
      const msg = answerMessage(result, { stateKey: key, echoQuestion: true, notes });
      await api.respond(input.responseUrl, { response_type: 'ephemeral', replace_original: true, ...msg });
    } catch (e) {
      log.error({ err: e }, 'slack: /ragask failed');
      await api
        .respond(input.responseUrl, { response_type: 'ephemeral', replace_original: true, ...errorMessage() })
        .catch(() => undefined);
    }
  }

  /** `/ragask sources`: what the current channel (or, in a DM, this user) can see. */
  async sourcesMessage(origin: Origin): Promise<Message> {
    const access = await this.deps.core.access.resolve(accessOf(origin));
    const docs = (await this.deps.core.access.documents()).filter((d) => access.allowDoc(d.id));
    // how many others exist is not this channel's business: only what it can see is counted
    const where = origin.isDM ? 'Our direct messages' : 'This channel';
    const lines = docs
      .slice(0, SOURCES_LISTED)
      .map(
        (d) =>
          `• ${escapeMrkdwn(d.title)}${d.scope && d.scope.kind !== 'public' ? ` _(${d.scope.kind === 'user' ? 'private to you' : 'this channel'})_` : ''}`,
      );
    const more = docs.length > SOURCES_LISTED ? `\n…and ${docs.length - SOURCES_LISTED} more.` : '';
    const count = `${docs.length} document${docs.length === 1 ? '' : 's'}`;
    return {
      text: `${where} can see ${count}.`,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: `*${where} can see ${count}:*` } },
        ...(lines.length
          ? [
              {
                type: 'section' as const,
                text: { type: 'mrkdwn' as const, text: (lines.join('\n') + more).slice(0, SECTION_TEXT_MAX) },
              },
            ]
          : []),
      ],
    };
  }
}

/** Where a command's answer goes: its channel, under `threadTs`. */
function originOf(input: CommandInput, threadTs: string): Origin {
  return {
    channel: input.channel,
    user: input.user,
    threadTs,
    isDM: input.isDM,
    ...(input.teamId ? { teamId: input.teamId } : {}),
  };
}
