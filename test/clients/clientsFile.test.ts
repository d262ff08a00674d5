import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientsDirectory, DEFAULT_POLICIES, loadClientsFile } from '../../src/clients/clientsFile';
import { ConfigError } from '../../src/config';
import { sha256Hex } from '../../src/sha256';
import { thrownBy } from '../support/failures';
import { spawnGateway } from '../support/gatewayProcess';

const HASH = sha256Hex('k');

function fileWith(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tablegraph-clients-')), name);
  writeFileSync(path, text);
  return path;
}

describe('clientsFile', () => {
  it('merges each client\'s policy over the file\'s audience defaults over the built-in ones', () => {
    const directory = clientsDirectory({
      defaults: { partner: { maxCost: 900 } },
      clients: [{ name: 'acme', audience: 'partner', keySha256: HASH.toUpperCase(), policy: { burst: 20 } }],
    });
    expect(directory.byKeyHash.get(HASH)?.policy).toEqual({ ...DEFAULT_POLICIES.partner, maxCost: 900, burst: 20 });
    expect(directory.anonymous).toBeUndefined();
  });

  it('reads first-party apps by name and the anonymous policy', () => {
    const directory = clientsDirectory({ clients: [{ name: 'web', audience: 'first-party' }], anonymous: { maxCost: 50 } });
    expect(directory.firstParty.get('web')?.policy.trustedDocumentsOnly).toBe(true);
    expect(directory.anonymous?.policy).toEqual({ ...DEFAULT_POLICIES.anonymous, maxCost: 50 });
  });

  it('names every problem at once, by its place in the file', () => {
    const { problems } = thrownBy(ConfigError, () =>
      clientsDirectory({
        clients: [
          { name: 'acme', audience: 'partner' },
          { name: 'acme', audience: 'partner', keySha256: 'my-plain-key' },
          { name: 'web', audience: 'first-party', keySha256: HASH, policy: { burst: 0, colour: 'red' } },
          { name: 'bad name!', audience: 'robot' },
        ],
      }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        'CLIENTS_FILE clients[0].keySha256: is required for a partner',
        'CLIENTS_FILE clients[1].keySha256: must be the SHA-256 of the key, 64 hex digits (never the key itself)',
        'CLIENTS_FILE clients[1].name: is used by another client',
        expect.stringMatching(/^CLIENTS_FILE clients\[2\]\.policy\.burst: /),
        expect.stringMatching(/^CLIENTS_FILE clients\[2\]\.policy: .*colour/),
        expect.stringMatching(/^CLIENTS_FILE clients\[3\]\.name: must be 1 to 64/),
        expect.stringMatching(/^CLIENTS_FILE clients\[3\]\.audience: /),
      ]),
    );
    expect(problems.join('\n')).not.toContain('my-plain-key');
  });

  it('refuses a burst below the rate, naming the client', () => {
    const raw = { clients: [{ name: 'web', audience: 'first-party', policy: { requestsPerSecond: 10, burst: 5 } }] };
    expect(thrownBy(ConfigError, () => clientsDirectory(raw)).problems).toEqual([
      'CLIENTS_FILE clients[0]: burst (5) must be at least requestsPerSecond (10)',
    ]);
  });

  it('reads YAML with comments and JSON alike', () => {
    const yaml = fileWith('clients.yaml', `# partners\nclients:\n  - name: acme # the partner\n    audience: partner\n    keySha256: ${HASH}\n`);
    const json = fileWith('clients.json', JSON.stringify({ clients: [{ name: 'acme', audience: 'partner', keySha256: HASH }] }));
    expect(loadClientsFile(yaml).byKeyHash.get(HASH)?.name).toBe('acme');
    expect(loadClientsFile(json).byKeyHash.get(HASH)?.name).toBe('acme');
  });

  it('names CLIENTS_FILE when the file cannot be read or parsed', () => {
    expect(() => loadClientsFile('/nonexistent/clients.yaml')).toThrow(/CLIENTS_FILE: cannot be read \(ENOENT\)/);
    expect(() => loadClientsFile(fileWith('broken.yaml', 'clients: [\n'))).toThrow(/CLIENTS_FILE: is neither JSON nor YAML/);
  });

  it('stops npm start with exit code 1, naming the problems of the file', async () => {
    const gateway = spawnGateway('src/main.ts', {
      SINGLE_REPLICA: 'true',
      RESERVATION_BASE_URL: 'http://127.0.0.1:9',
      POS_BASE_URL: 'http://127.0.0.1:9',
      PORT: '0',
      CLIENTS_FILE: fileWith('clients.yaml', 'clients:\n  - name: acme\n    audience: partner\n'),
    });
    expect(await gateway.exited).toBe(1);
    expect(gateway.stderr()).toContain('CLIENTS_FILE clients[0].keySha256: is required for a partner');
  }, 20_000);
});
