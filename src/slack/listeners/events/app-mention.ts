import type { App } from '@slack/bolt';
import type { SlackService } from '../../service.js';

/** `@ragask …` in a channel: answered in a thread under the question (a follow-up if the thread has one). */
export function register(app: App, service: SlackService): void {
  app.event('app_mention', async ({ event, body, context }) => {
    service.setBotUserId(context.botUserId);
    if (!event.user) return await service.ignoreEvent(body.event_id);
    await service.handleQuestion({
      eventId: body.event_id,
      channel: event.channel,
      user: event.user,
      threadTs: event.thread_ts ?? event.ts,
      text: event.text,
      isDM: false,
      source: event.thread_ts && (await service.hasThread(event.channel, event.thread_ts)) ? 'thread' : 'mention',
      ...(body.team_id ? { teamId: body.team_id } : {}),
    });
  });
}
