import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { postToResponseUrl } from '../../src/slack/response-url.js';

// A response_url on 127.0.0.1 that answers each post with the next status of a script.
const servers: http.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function scripted(statuses: number[]): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      bodies.push(body);
      const status = statuses[bodies.length - 1] ?? 200;
      res.writeHead(status, status === 429 ? { 'retry-after': '1' } : {});
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies };
}

describe('postToResponseUrl', () => {
  it('waits out a 429, backs off a 503, and delivers once it is taken', async () => {
    const { url, bodies } = await scripted([429, 503, 200]);
    let limited = 0;
    const t0 = Date.now();
    await postToResponseUrl(url, { text: 'hello' }, { retries: 3, log: silentLogger, onRateLimited: () => limited++ });
    expect(bodies).toEqual(['{"text":"hello"}', '{"text":"hello"}', '{"text":"hello"}']);
    expect(limited).toBe(1);
    // the 429's Retry-After of one second was waited
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
  });

  it('does not retry a refusal, and throws it with a Slack error code', async () => {
    const { url, bodies } = await scripted([404]);
    const post = postToResponseUrl(url, { text: 'x' }, { retries: 3, log: silentLogger, onRateLimited: () => {} });
    await expect(post).rejects.toMatchObject({ code: ErrorCode.HTTPError, statusCode: 404 });
    expect(bodies).toHaveLength(1);
  });

  it('gives up after its retries on a server that keeps failing', async () => {
    const { url, bodies } = await scripted([500, 500, 500, 500]);
    const post = postToResponseUrl(url, { text: 'x' }, { retries: 2, log: silentLogger, onRateLimited: () => {} });
    await expect(post).rejects.toMatchObject({ code: ErrorCode.HTTPError, statusCode: 500 });
    expect(bodies).toHaveLength(3);
  });
});
