import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer of the stand-in: a status (429 with Retry-After 1 s, a 5xx), a broken stream, or a reply. */
export type Scripted =
  | { status: number }
  | { malformed: true }
  /** A reply, or one made from the prompt's user message (a model that reads what it is given). */
  | { reply: string | ((prompt: string) => string); chunkDelayMs?: number };

export interface ChatRequest {
  authorization: string | null;
  body: { model: string; messages: { role: string; content: string }[]; stream?: boolean; max_tokens?: number };
}

/**
 * A local stand-in of an OpenAI-compatible chat endpoint on 127.0.0.1 (what llama.cpp's server,
 * Ollama and vLLM serve): `/v1/models`, and `/v1/chat/completions` streamed as server-sent events.
 * Each chat request takes the next scripted answer (the last one repeats); every request is kept.
 */
export class FakeLlm {
  readonly requests: ChatRequest[] = [];
  private server: http.Server | null = null;
  private port = 0;

  constructor(
    private readonly script: Scripted[],
    readonly model = 'stand-in-model',
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += (chunk as Buffer).toString();
    if (req.url?.endsWith('/models'))
      return this.json(res, 200, { object: 'list', data: [{ id: this.model, object: 'model' }] });
    if (!req.url?.endsWith('/chat/completions')) return this.json(res, 404, { error: { message: 'not found' } });
    const request = { authorization: req.headers.authorization ?? null, body: JSON.parse(raw) as ChatRequest['body'] };
    this.requests.push(request);
    const step = this.script[Math.min(this.requests.length - 1, this.script.length - 1)]!;
    if ('status' in step) {
      res.writeHead(step.status, {
        'content-type': 'application/json',
        ...(step.status === 429 ? { 'retry-after': '1' } : {}),
      });
      res.end(JSON.stringify({ error: { message: `status ${step.status}`, type: 'stand_in' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if ('malformed' in step) {
      res.end('data: {"choices": [ this is not json\n\n');
      return;
    }
    const reply = typeof step.reply === 'string' ? step.reply : step.reply(request.body.messages.at(-1)?.content ?? '');
    if (!request.body.stream) {
      res.end(JSON.stringify(this.completion(reply)));
      return;
    }
    for (const piece of reply.match(/\S+\s*/g) ?? []) {
      res.write(`data: ${JSON.stringify(this.chunk(piece))}\n\n`);
      if (step.chunkDelayMs) await new Promise((r) => setTimeout(r, step.chunkDelayMs));
    }
    res.end('data: [DONE]\n\n');
  }

  private chunk(content: string) {
    return {
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 0,
      model: this.model,
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
    };
  }

  private completion(content: string) {
    return {
      id: 'c1',
      object: 'chat.completion',
      created: 0,
      model: this.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    };
  }

  private json(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}
