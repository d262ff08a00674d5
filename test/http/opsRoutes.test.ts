import { request } from 'node:http';
import { startStack, type Stack } from '../support/stack';

/** A raw request, so the test sees exactly what came over the socket (fetch hides a HEAD body). */
function raw(url: string, method: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('opsRoutes', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());

  it.each(['/healthz', '/readyz', '/metrics'])('answers HEAD %s as GET, without a body', async (path) => {
    const get = await raw(`${stack.url}${path}`, 'GET');
    const head = await raw(`${stack.url}${path}`, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.status).toBe(get.status);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.body).toBe('');
    expect(get.body).not.toBe('');
  });

  it('answers HEAD /readyz with 503 while draining, as GET does', async () => {
    const draining = await startStack();
    try {
      draining.gateway.drain();
      expect((await raw(`${draining.url}/readyz`, 'HEAD')).status).toBe(503);
      expect((await raw(`${draining.url}/readyz`, 'GET')).status).toBe(503);
    } finally {
      await draining.close();
    }
  });
});
