import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { ALL_CREDENTIAL_HEADERS } from '../src/credentials';
import { createLogger } from '../src/logger';
import { eventually } from './support/gatewayProcess';

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

describe('createLogger on standard output', () => {
  /** A child process that logs `count` lines in one turn, then either waits (until killed) or throws. */
  function child(count: number, then: 'wait' | 'crash'): ChildProcessByStdio<null, Readable, Readable> {
    const script = [
      `const logger = require('./src/logger').createLogger({ level: 'info' });`,
      `for (let i = 0; i < ${count}; i++) logger.info({ i }, 'line');`,
      then === 'wait' ? 'setInterval(() => {}, 1000);' : `throw new Error('crash');`,
    ].join('\n');
    return spawn(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: join(__dirname, '..'), stdio: ['ignore', 'pipe', 'pipe'] });
  }

  function linesOf(out: string): Array<Record<string, unknown>> {
    return out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  it('writes the lines of one turn of the event loop while the process goes on, in order', async () => {
    const proc = child(3, 'wait');
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    try {
      expect(await eventually(() => linesOf(out).length === 3, 15_000)).toBe(true);
      expect(linesOf(out).map((l) => l.i)).toEqual([0, 1, 2]);
    } finally {
      proc.kill('SIGKILL');
    }
  });

  it('goes on when nobody reads standard output any more, dropping the lines', async () => {
    const script = [
      `const logger = require('./src/logger').createLogger({ level: 'info' });`,
      // Lines each turn, and one turn's worth past the early-write size: both writes meet the closed pipe.
      `let turns = 0;`,
      `const timer = setInterval(() => { for (let i = 0; i < 200; i++) logger.info({ pad: 'x'.repeat(100) }, 'line');`,
      `  if (++turns === 200) { clearInterval(timer); process.stderr.write('went on'); } }, 1);`,
    ].join('\n');
    const proc = spawn(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: join(__dirname, '..'), stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    proc.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    // The reader leaves after the first bytes.
    proc.stdout.once('data', () => proc.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => proc.once('close', resolve));
    expect([code, err]).toEqual([0, 'went on']);
  });

  it('writes what is left when the process dies of an uncaught error', async () => {
    const proc = child(2, 'crash');
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => proc.once('close', resolve));
    expect(code).not.toBe(0);
    expect(linesOf(out).map((l) => l.i)).toEqual([0, 1]);
  });
});
