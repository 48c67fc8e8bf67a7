import type { App } from '@slack/bolt';
import type { SlackService } from '../service.js';
import * as continueAction from './actions/continue.js';
import * as feedbackAction from './actions/feedback.js';
import * as feedbackReasonAction from './actions/feedback-reason.js';
import * as homeSourceAction from './actions/home-source.js';
import * as stopAction from './actions/stop.js';
import * as traceAction from './actions/trace.js';
import * as ragaskCommand from './commands/ragask.js';
import * as appHomeOpened from './events/app-home-opened.js';
import * as appMention from './events/app-mention.js';
import * as message from './events/message.js';
import * as sourceMessage from './events/source-message.js';

export function registerListeners(app: App, service: SlackService): void {
  for (const l of [
    appMention,
    message,
    sourceMessage,
    ragaskCommand,
    continueAction,
    stopAction,
    traceAction,
    feedbackAction,
    feedbackReasonAction,
    appHomeOpened,
    homeSourceAction,
  ])
    l.register(app, service);
}
