import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { ACTIONS } from '../../blocks/answer.js';
import type { SlackService } from '../../service.js';
import { actionInput } from './shared.js';

/** "Continue with: …" on a suggested next hop: resumes the chain from the stored state. */
export function register(app: App, service: SlackService): void {
  app.action<BlockAction<ButtonAction>>(new RegExp(`^${ACTIONS.continue}_\\d+$`), async ({ ack, body, action }) => {
    await ack();
    await service.handleContinue(actionInput(body, action));
  });
}
