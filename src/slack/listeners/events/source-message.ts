import type { App } from '@slack/bolt';
import type { SourceEvent } from '../../source/live.js';
import type { SlackService } from '../../service.js';

/** Messages, edits and deletions in channels whose threads are sources (RAGASK_SLACK_SOURCES): the thread is read again. */
export function register(app: App, service: SlackService): void {
  app.event('message', async ({ event }) => {
    service.onSourceMessage(event as unknown as SourceEvent);
  });
}
