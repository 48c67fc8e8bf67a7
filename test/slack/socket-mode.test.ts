import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocksText, startHarness, type Harness } from './harness.js';
import { FakeEngine } from './fake-engine.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ engine: new FakeEngine(), mode: 'socket' });
  await h.fake.waitFor(() => h.fake.socketConnected, 10_000, 'socket connection');
});
afterAll(() => h.close());

describe('Slack over Socket Mode (real Bolt SocketModeReceiver, local WebSocket server)', () => {
  it('opened the connection through apps.connections.open on the configured API URL', () => {
    expect(h.fake.callsOf('apps.connections.open').length).toBeGreaterThanOrEqual(1);
  });

  it('acks an events_api envelope and answers the mention in its thread', async () => {
    h.fake.sendEnvelope({
      envelope_id: 'env-1',
      type: 'events_api',
      accepts_response_payload: false,
      retry_attempt: 0,
      retry_reason: '',
      payload: {
        token: 'x',
        team_id: 'T1',
        api_app_id: 'A1',
        type: 'event_callback',
        event_id: 'EvSocket1',
        event_time: Math.floor(Date.now() / 1000),
        authorizations: [{ team_id: 'T1', user_id: 'UBOT', is_bot: true }],
        event: {
          type: 'app_mention',
          user: 'U1',
          text: '<@UBOT> Which frequency band does the telemetry radio of Project Heron use?',
          ts: '3000.0001',
          channel: 'C2',
          event_ts: '3000.0001',
        },
      },
    });
    await h.fake.waitFor(() => h.fake.socketAcks.find((a) => a.envelope_id === 'env-1'), 10_000, 'ack');
    const post = await h.fake.waitFor(() =>
      h.fake.callsOf('chat.postMessage').find((c) => c.args.thread_ts === '3000.0001' && c.result),
    );
    const update = await h.fake.waitFor(() =>
      h.fake
        .callsOf('chat.update')
        .find((c) => c.args.ts === post.result!.ts && blocksText(c.args.blocks).includes('Confidence')),
    );
    expect(update.args.text).toBe('+0.35 °C');
  });

  it('acks a slash command envelope at once and answers through the response URL', async () => {
    h.fake.sendEnvelope({
      envelope_id: 'env-2',
      type: 'slash_commands',
      accepts_response_payload: true,
      payload: {
        token: 'x',
        team_id: 'T1',
        channel_id: 'C3',
        channel_name: 'general',
        user_id: 'U2',
        command: '/ragask',
        text: 'help',
        response_url: h.fake.responseUrl('sock-help'),
        trigger_id: 't1',
        api_app_id: 'A1',
      },
    });
    await h.fake.waitFor(() => h.fake.socketAcks.find((a) => a.envelope_id === 'env-2'), 10_000, 'command ack');
    const resp = await h.fake.waitFor(() => h.fake.responses.find((r) => r.id === 'sock-help'));
    expect(resp.body.response_type).toBe('ephemeral');
  });
});
