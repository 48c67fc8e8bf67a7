import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { ACTIONS } from '../../blocks/answer.js';
import type { SlackService } from '../../service.js';
import { actionInput } from './shared.js';

/** Why an answer was not helpful (wrong, out of date, not what was asked): one click after "Not helpful". */
export function register(app: App, service: SlackService): void {
  app.action<BlockAction<ButtonAction>>(new RegExp(`^${ACTIONS.feedbackReason}_`), async ({ ack, body, action }) => {
    await ack();
    await service.handleFeedbackReason(actionInput(body, action));
  });
}
