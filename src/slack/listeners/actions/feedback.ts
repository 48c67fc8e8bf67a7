import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { ACTIONS } from '../../blocks/answer.js';
import type { SlackService } from '../../service.js';
import { actionInput } from './shared.js';

/** Helpful / not helpful, stored with the question, the answer and the evidence ids. */
export function register(app: App, service: SlackService): void {
  app.action<BlockAction<ButtonAction>>(ACTIONS.helpful, async ({ ack, body, action }) => {
    await ack();
    await service.handleFeedback(actionInput(body, action), 'helpful');
  });
  app.action<BlockAction<ButtonAction>>(ACTIONS.notHelpful, async ({ ack, body, action }) => {
    await ack();
    await service.handleFeedback(actionInput(body, action), 'not_helpful');
  });
}
