import { createHmac } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * A local stand-in for Slack's servers, on 127.0.0.1, for the tests and the load benchmark: the Web
 * API (records every call, can answer 429 with Retry-After or an error, or hold a call open),
 * response_url endpoints, and a Socket Mode WebSocket server. Only what cannot be reached from a
 * test machine is replaced; Bolt, its receivers and the WebClient stay real.
 */
export interface ApiCall {
  method: string;
  args: Record<string, unknown>;
  at: number;
  /** What the fake answered (status 429 calls have none). */
  result?: Record<string, unknown>;
}

export interface SocketMessage {
  envelope_id?: string;
  payload?: unknown;
}

/** A channel of the stand-in's workspace, with its history (roots and thread replies). */
export interface FakeChannel {
  name: string;
  isPrivate: boolean;
  /** Whether ragask was invited (else history answers not_in_channel). */
  member: boolean;
  messages: { ts: string; text: string; user?: string; bot_id?: string; subtype?: string; thread_ts?: string }[];
}

export class FakeSlack {
  /** The workspace's channels (conversations.history, .replies, .info read them). */
  readonly channels = new Map<string, FakeChannel>();
  /** Display names users.info answers with. */
  readonly users = new Map<string, string>();
  /** Messages per history page at most (Slack's limit argument applies below it). */
  historyPage = 200;
  readonly calls: ApiCall[] = [];
  readonly responses: { id: string; body: Record<string, unknown>; at: number }[] = [];
  readonly socketAcks: SocketMessage[] = [];
  private server!: http.Server;
  private wss: WebSocketServer | null = null;
  private sockets: WebSocket[] = [];
  private ts = 1_700_000_000;
  private failures = new Map<string, { status: number; retryAfter?: number; error?: string; remaining: number }>();
  /** Called with every recorded call (e.g. to time answers in the load benchmark). */
  readonly hooks: ((call: ApiCall) => void)[] = [];
  private holds: { method: string; match: (args: Record<string, unknown>) => boolean }[] = [];
  /** Calls held open (never answered), e.g. to kill a process while it waits on Slack. */
  readonly held: ApiCall[] = [];
  /** When false, calls are not recorded (a long soak keeps memory flat). */
  record = true;
  /** Counts per method, kept even when not recording. */
  readonly counts = new Map<string, number>();
  port = 0;
  wsPort = 0;

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api/`;
  }

  /**
   * The settings for a `ragask serve` (HTTP receiver on 127.0.0.1:`port`) that talks to this
   * stand-in instead of Slack, for tests and benchmarks that run the bot as its own process.
   */
  serveEnv(opts: { dataDir: string; port: number; signingSecret: string }): Record<string, string> {
    return {
      RAGASK_DATA_DIR: opts.dataDir,
      SLACK_BOT_TOKEN: 'xoxb-1-stand-in-token',
      SLACK_SIGNING_SECRET: opts.signingSecret,
      SLACK_APP_TOKEN: '',
      RAGASK_SLACK_MODE: 'http',
      RAGASK_SLACK_PORT: String(opts.port),
      RAGASK_SLACK_HOST: '127.0.0.1',
      RAGASK_SLACK_API_URL: this.apiUrl,
      RAGASK_LOG_LEVEL: 'warn',
    };
  }

  responseUrl(id: string): string {
    return `http://127.0.0.1:${this.port}/respond/${id}`;
  }

  /** The next `count` calls of `method` fail with HTTP 429 and this Retry-After (seconds). */
  rateLimit(method: string, count: number, retryAfter: number): void {
    this.failures.set(method, { status: 429, retryAfter, remaining: count });
  }

  /** The next `count` calls of `method` answer ok:false with this error. */
  fail(method: string, error: string, count = 1): void {
    this.failures.set(method, { status: 200, error, remaining: count });
  }

  /** The next call of `method` whose arguments match is received but never answered. */
  hold(method: string, match: (args: Record<string, unknown>) => boolean = () => true): void {
    this.holds.push({ method, match });
  }

  callsOf(method: string): ApiCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  async waitFor<T>(
    check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
    timeoutMs = 20_000,
    what = 'condition',
  ): Promise<T> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const v = await check();
      if (v) return v;
      if (Date.now() > until)
        throw new Error(`timed out waiting for ${what}; calls: ${this.calls.map((c) => c.method).join(', ')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  private nextTs(): string {
    this.ts += 1;
    return `${this.ts}.000100`;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const url = req.url ?? '';
      const args = parseBody(raw, req.headers['content-type'] ?? '');
      if (url.startsWith('/respond/')) {
        this.responses.push({ id: url.slice('/respond/'.length), body: args, at: Date.now() });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        return;
      }
      const method = url.replace(/^\/api\//, '').split('?')[0]!;
      const call: ApiCall = { method, args, at: Date.now() };
      this.counts.set(method, (this.counts.get(method) ?? 0) + 1);
      if (this.record) this.calls.push(call);
      for (const hook of this.hooks) hook(call);
      const hold = this.holds.findIndex((x) => x.method === method && x.match(args));
      if (hold >= 0) {
        this.holds.splice(hold, 1);
        this.held.push(call);
        return;
      }
      const f = this.failures.get(method);
      if (f && f.remaining > 0) {
        f.remaining--;
        if (f.status === 429) {
          res
            .writeHead(429, { 'content-type': 'application/json', 'retry-after': String(f.retryAfter ?? 1) })
            .end(JSON.stringify({ ok: false, error: 'ratelimited' }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: f.error }));
        return;
      }
      call.result = this.answer(method, args);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(call.result));
    });
  }

  private answer(method: string, args: Record<string, unknown>): Record<string, unknown> {
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: 'https://test.slack.com/',
          team: 'Test',
          user: 'ragask',
          team_id: 'T1',
          user_id: 'UBOT',
          bot_id: 'BBOT',
        };
      case 'chat.postMessage': {
        const ts = this.nextTs();
        return { ok: true, channel: args.channel, ts, message: { text: args.text, ts } };
      }
      case 'chat.update':
        return { ok: true, channel: args.channel, ts: args.ts, text: args.text };
      case 'chat.postEphemeral':
        return { ok: true, message_ts: this.nextTs() };
      case 'chat.startStream': {
        const ts = this.nextTs();
        return { ok: true, channel: args.channel, ts };
      }
      case 'chat.getPermalink':
        return {
          ok: true,
          channel: args.channel,
          permalink: `https://test.slack.com/archives/${String(args.channel)}/p${String(args.message_ts).replace('.', '')}`,
        };
      case 'conversations.info': {
        const c = this.channels.get(String(args.channel));
        if (!c) return { ok: false, error: 'channel_not_found' };
        return { ok: true, channel: { id: args.channel, name: c.name, is_private: c.isPrivate } };
      }
      case 'conversations.history':
      case 'conversations.replies':
        return this.historyPageOf(method, args);
      case 'users.info': {
        const name = this.users.get(String(args.user));
        return name
          ? { ok: true, user: { id: args.user, name, profile: { display_name: name } } }
          : { ok: false, error: 'user_not_found' };
      }
      case 'views.publish':
        return { ok: true, view: { id: `V${this.nextTs().replace('.', '')}`, type: 'home' } };
      case 'apps.connections.open':
        return { ok: true, url: `ws://127.0.0.1:${this.wsPort}/link` };
      default:
        return { ok: true };
    }
  }

  /** A page of a channel's roots (newest first, newer than `oldest`) or of one thread (root first). */
  private historyPageOf(method: string, args: Record<string, unknown>): Record<string, unknown> {
    const c = this.channels.get(String(args.channel));
    if (!c) return { ok: false, error: 'channel_not_found' };
    if (!c.member) return { ok: false, error: 'not_in_channel' };
    const replies = (ts: string) => c.messages.filter((m) => m.thread_ts === ts && m.ts !== ts);
    let all: Record<string, unknown>[];
    if (method === 'conversations.history') {
      const oldest = args.oldest === undefined ? -Infinity : Number(args.oldest);
      all = c.messages
        .filter((m) => (!m.thread_ts || m.thread_ts === m.ts) && Number(m.ts) > oldest)
        .sort((a, b) => Number(b.ts) - Number(a.ts))
        .map((m) => ({ ...m, reply_count: replies(m.ts).length || undefined }));
    } else {
      const root = c.messages.find((m) => m.ts === String(args.ts));
      if (!root) return { ok: false, error: 'thread_not_found' };
      all = [root, ...replies(root.ts).sort((a, b) => Number(a.ts) - Number(b.ts))];
    }
    const size = Math.min(this.historyPage, Number(args.limit ?? 100));
    const from = args.cursor ? Number(String(args.cursor).replace('page:', '')) : 0;
    const page = all.slice(from, from + size);
    // every page of a thread starts with its root, as Slack's do
    const messages = method === 'conversations.replies' && from > 0 ? [all[0], ...page] : page;
    const more = from + size < all.length;
    return {
      ok: true,
      messages,
      has_more: more,
      response_metadata: { next_cursor: more ? `page:${from + size}` : '' },
    };
  }

  /** A Socket Mode server: greets each connection with hello; `sendEnvelope` pushes events. */
  async startSocketMode(): Promise<void> {
    this.wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => this.wss!.once('listening', () => r()));
    this.wsPort = (this.wss.address() as AddressInfo).port;
    this.wss.on('connection', (ws) => {
      this.sockets.push(ws);
      ws.on('message', (data) => this.socketAcks.push(JSON.parse(String(data)) as SocketMessage));
      ws.send(
        JSON.stringify({
          type: 'hello',
          num_connections: 1,
          debug_info: { host: 'fake' },
          connection_info: { app_id: 'A1' },
        }),
      );
    });
  }

  get socketConnected(): boolean {
    return this.sockets.some((s) => s.readyState === s.OPEN);
  }

  sendEnvelope(envelope: Record<string, unknown>): void {
    for (const s of this.sockets) if (s.readyState === s.OPEN) s.send(JSON.stringify(envelope));
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.terminate();
    if (this.wss) await new Promise<void>((r) => this.wss!.close(() => r()));
    this.hooks.length = 0;
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

function parseBody(raw: string, contentType: string): Record<string, unknown> {
  if (!raw) return {};
  if (contentType.includes('application/json')) return JSON.parse(raw) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    // the WebClient sends arrays and objects (blocks) as JSON strings in form fields
    out[k] = /^[[{]/.test(v)
      ? (() => {
          try {
            return JSON.parse(v);
          } catch {
            return v;
          }
        })()
      : v;
  }
  return out;
}

/** Signs a request body the way Slack does (v0 HMAC-SHA256 over "v0:timestamp:body"). */
function sign(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  const sig = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return { 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': sig };
}

/** Posts a signed request to the app's HTTP receiver. */
export async function deliver(
  port: number,
  secret: string,
  body: string,
  contentType: string,
  extraHeaders: Record<string, string> = {},
  timestamp?: number,
): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/slack/events`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...sign(secret, body, timestamp), ...extraHeaders },
    body,
  });
  return { status: res.status, text: await res.text() };
}

let eventSeq = 0;
export function eventBody(
  event: Record<string, unknown>,
  eventId = `Ev${++eventSeq}${Date.now()}`,
): { body: string; eventId: string } {
  return {
    eventId,
    body: JSON.stringify({
      token: 'x',
      team_id: 'T1',
      api_app_id: 'A1',
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: 'T1', user_id: 'UBOT', is_bot: true }],
      event,
    }),
  };
}

export function commandBody(fields: Record<string, string>): string {
  return new URLSearchParams({
    token: 'x',
    team_id: 'T1',
    team_domain: 'test',
    channel_name: 'general',
    command: '/ragask',
    api_app_id: 'A1',
    trigger_id: `t${Date.now()}`,
    ...fields,
  }).toString();
}

export function actionBody(p: {
  user: string;
  channel: string;
  messageTs: string;
  threadTs?: string;
  actionId: string;
  value: string;
  responseUrl: string;
}): string {
  const payload = {
    type: 'block_actions',
    team: { id: 'T1', domain: 'test' },
    user: { id: p.user, username: p.user, team_id: 'T1' },
    api_app_id: 'A1',
    token: 'x',
    container: {
      type: 'message',
      message_ts: p.messageTs,
      channel_id: p.channel,
      is_ephemeral: false,
      ...(p.threadTs ? { thread_ts: p.threadTs } : {}),
    },
    trigger_id: `t${Date.now()}`,
    channel: { id: p.channel, name: 'general' },
    message: { type: 'message', ts: p.messageTs, text: 'answer', ...(p.threadTs ? { thread_ts: p.threadTs } : {}) },
    response_url: p.responseUrl,
    actions: [
      {
        action_id: p.actionId,
        block_id: 'ragask_suggestions',
        value: p.value,
        type: 'button',
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** A TCP port free on 127.0.0.1 right now (for a receiver started in another process). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
