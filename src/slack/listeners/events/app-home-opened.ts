import type { App } from '@slack/bolt';
import type { SlackService } from '../../service.js';

/** The Home tab opened: that person's view is published (again: reopening refreshes it). */
export function register(app: App, service: SlackService): void {
  app.event('app_home_opened', async ({ event }) => {
    if (event.tab !== 'home') return;
    await service.publishHome(event.user);
  });
}
