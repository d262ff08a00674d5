import { Writable } from 'node:stream';
import { ALL_CREDENTIAL_HEADERS } from '../src/credentials';
import { createLogger } from '../src/logger';

function capture(): { lines: Array<Record<string, any>>; destination: Writable } {
  const lines: Array<Record<string, any>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, any>);
      done();
    },
  });
  return { lines, destination };
}

describe('createLogger', () => {
  it('writes JSON lines with the service name', () => {
    const { lines, destination } = capture();
    createLogger({ level: 'info', destination }).info({ a: 1 }, 'hello');
    expect(lines).toEqual([expect.objectContaining({ level: 30, service: 'tablegraph', a: 1, msg: 'hello' })]);
  });

  it('redacts every credential header, partners\' API keys and cookies, wherever headers are logged', () => {
    const { lines, destination } = capture();
    const headers = Object.fromEntries([...ALL_CREDENTIAL_HEADERS, 'x-api-key', 'cookie'].map((h) => [h, `secret-of-${h}`]));
    const logger = createLogger({ level: 'info', destination });
    logger.info({ req: { headers } }, 'incoming');
    logger.info({ headers }, 'bare');
    logger.info({ upstream: { headers } }, 'nested');
    logger.info({ request: { headers: { 'Pos-Access-Token': 'secret-of-spelled', EMPLOYEE_TOKEN: 'secret-of-upper', 'Slug-Name': 'secret-of-hyphen', 'set-cookie': 'secret-of-set' } } }, 'spelled');
    logger.error({ err: { message: 'x', cause: { cause: { headers } }, originalError: { headers }, response: { headers } } }, 'nested errors');
    const text = JSON.stringify(lines);
    expect(text).not.toContain('secret-of-');
    expect(lines[0].req.headers['pos-access-token']).toBe('[redacted]');
    expect(lines[2].upstream.headers.authorization).toBe('[redacted]');
    expect(lines[1].headers['x-api-key']).toBe('[redacted]');
    // Both spellings of the underscore headers (CONTRACT.md, "Credentials").
    expect([lines[0].req.headers.store_pin_code, lines[0].req.headers['store-pin-code'], lines[3].request.headers['Slug-Name']]).toEqual(['[redacted]', '[redacted]', '[redacted]']);
  });

  it('adds no trace fields outside a traced request', () => {
    const { lines, destination } = capture();
    createLogger({ level: 'info', destination }).info('plain');
    expect(lines[0]).not.toHaveProperty('traceId');
  });
});
