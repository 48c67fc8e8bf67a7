import type { App } from '@slack/bolt';
import { isPersonMessage } from '../../delivery.js';
import type { SlackService } from '../../service.js';

interface PlainMessage {
  subtype?: string;
  bot_id?: string;
  user?: string;
  text?: string;
  channel: string;
  channel_type?: string;
  ts: string;
  thread_ts?: string;
}

/**
 * Direct messages, and follow-ups in threads ragask answered: a question from someone who asked
 * there (no mention needed; see follow-up.ts). A message that mentions the bot is left to the
 * app_mention listener, so it is answered once.
 */
export function register(app: App, service: SlackService): void {
  app.event('message', async ({ event, body, context }) => {
    service.setBotUserId(context.botUserId);
    const m = event as unknown as PlainMessage;
    // a reply also sent to the channel, or a message with a file, still asks something
    if (!isPersonMessage(m) || !m.user || !m.text) return await service.ignoreEvent(body.event_id);
    const isDM = m.channel_type === 'im';
    if (!isDM && service.mentionsBot(m.text)) return await service.ignoreEvent(body.event_id);
    const threadTs = m.thread_ts ?? m.ts;
    // in a channel, a reply is for ragask only from someone who asked there, and only a question
    const followUp = !!m.thread_ts && (await service.isFollowUp(m.channel, m.thread_ts, m.user, m.text));
    if (!isDM && !followUp) return await service.ignoreEvent(body.event_id);
    await service.handleQuestion({
      eventId: body.event_id,
      channel: m.channel,
      user: m.user,
      threadTs,
      text: m.text,
      isDM,
      source: followUp ? 'thread' : 'dm',
      ...(body.team_id ? { teamId: body.team_id } : {}),
    });
  });
}
