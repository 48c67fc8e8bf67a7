/** A message as conversations.history and conversations.replies return it (the fields ragask reads). */
export interface SlackMessage {
  ts: string;
  text?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  thread_ts?: string;
  reply_count?: number;
}
