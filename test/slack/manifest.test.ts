import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

interface Manifest {
  display_information: { name: string };
  features: {
    bot_user: { display_name: string };
    slash_commands: { command: string }[];
    app_home: { messages_tab_enabled: boolean; home_tab_enabled: boolean };
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { bot_events: string[] };
    interactivity: { is_enabled: boolean };
    socket_mode_enabled: boolean;
  };
}

const manifest = parse(fs.readFileSync(path.join(ROOT, 'manifest.yml'), 'utf8')) as Manifest;

describe('manifest.yml', () => {
  it('declares the bot user, /ragask, interactivity and Socket Mode', () => {
    expect(manifest.display_information.name).toBe('ragask');
    expect(manifest.features.bot_user.display_name).toBe('ragask');
    expect(manifest.features.slash_commands.map((c) => c.command)).toEqual(['/ragask']);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest.features.app_home.messages_tab_enabled).toBe(true);
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
  });

  it('subscribes to the events the listeners handle, and asks only for the scopes they need', () => {
    expect(new Set(manifest.settings.event_subscriptions.bot_events)).toEqual(
      new Set(['app_mention', 'app_home_opened', 'message.channels', 'message.groups', 'message.im', 'message.mpim']),
    );
    expect(new Set(manifest.oauth_config.scopes.bot)).toEqual(
      new Set([
        'app_mentions:read',
        'channels:history',
        'groups:history',
        'im:history',
        'mpim:history',
        'chat:write',
        'chat:write.public',
        'commands',
        'channels:read',
        'groups:read',
        'users:read',
      ]),
    );
  });
});
