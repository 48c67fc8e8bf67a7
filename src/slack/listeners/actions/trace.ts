import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { ACTIONS } from '../../blocks/answer.js';
import type { SlackService } from '../../service.js';
import { actionInput } from './shared.js';

/** "Show trace": every hop's state, to the clicker only. */
export function register(app: App, service: SlackService): void {
  app.action<BlockAction<ButtonAction>>(ACTIONS.trace, async ({ ack, body, action }) => {
    await ack();
    await service.handleTrace(actionInput(body, action));
  });
}
