import type { BlockAction, ButtonAction } from '@slack/bolt';
import type { ActionInput } from '../../service.js';

/** The parts of a button click the service needs. */
export function actionInput(body: BlockAction, action: ButtonAction): ActionInput {
  const container = body.container as { message_ts?: string; is_ephemeral?: boolean; channel_id?: string } | undefined;
  return {
    user: body.user.id,
    channel: body.channel?.id ?? container?.channel_id ?? '',
    value: action.value ?? '',
    messageTs: container?.message_ts ?? body.message?.ts ?? null,
    ephemeral: container?.is_ephemeral === true,
    responseUrl: body.response_url ?? null,
  };
}
