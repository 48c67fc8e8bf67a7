import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { ACTIONS } from '../../blocks/answer.js';
import type { SlackService } from '../../service.js';
import { actionInput } from './shared.js';

/** "Stop here": keeps the answer without the suggestions. */
export function register(app: App, service: SlackService): void {
  app.action<BlockAction<ButtonAction>>(ACTIONS.stop, async ({ ack, body, action }) => {
    await ack();
    await service.handleStop(actionInput(body, action));
  });
}
