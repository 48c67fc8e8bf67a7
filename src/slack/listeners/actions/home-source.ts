import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { HOME_ACTIONS } from '../../blocks/home.js';
import type { SlackService } from '../../service.js';

/** Hide this source / Demote on an admin's Home tab: acts on the source for every answer. */
export function register(app: App, service: SlackService): void {
  for (const [action, id] of [
    ['hide', HOME_ACTIONS.hide],
    ['demote', HOME_ACTIONS.demote],
  ] as const) {
    app.action<BlockAction<ButtonAction>>(id, async ({ ack, body, action: button }) => {
      await ack();
      await service.handleHomeSourceAction(body.user.id, action, button.value ?? '');
    });
  }
}
