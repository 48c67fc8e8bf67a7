import type { App } from '@slack/bolt';
import type { SlackService } from '../../service.js';

/** `/ragask <question>`, `/ragask help`, `/ragask sources`: acknowledged at once, answered after. */
export function register(app: App, service: SlackService): void {
  app.command('/ragask', async ({ command, ack, context }) => {
    await ack();
    service.setBotUserId(context.botUserId);
    await service.handleCommand({
      channel: command.channel_id,
      user: command.user_id,
      text: command.text ?? '',
      responseUrl: command.response_url,
      isDM: command.channel_name === 'directmessage' || command.channel_id.startsWith('D'),
      teamId: command.team_id,
    });
  });
}
