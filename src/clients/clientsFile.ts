import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../config';
import { codeOf, messageOf } from '../errors/errorFields';
import { formatPath } from '../errors/fieldPath';
import type { ClientPolicy, KnownClient } from '../pipeline/record';

type Audience = KnownClient['audience'];

/** The clients file, validated: partners by the SHA-256 (hex, lower case) of their key, first-party apps by name. */
export type ClientsDirectory = ReturnType<typeof clientsDirectory>;

/** The built-in defaults per audience, overridden by the file's `defaults`, then by each client's `policy`. */
export const DEFAULT_POLICIES: Readonly<Record<Audience, Readonly<ClientPolicy>>> = {
  'first-party': { requestsPerSecond: 20, burst: 40, upstreamCallsPerMinute: 1200, maxCost: 5000, trustedDocumentsOnly: true, introspectionAllowed: false },
  partner: { requestsPerSecond: 5, burst: 10, upstreamCallsPerMinute: 300, maxCost: 2000, trustedDocumentsOnly: false, introspectionAllowed: true },
  anonymous: { requestsPerSecond: 1, burst: 5, upstreamCallsPerMinute: 60, maxCost: 500, trustedDocumentsOnly: false, introspectionAllowed: false },
};

const count = z.number().int().min(1);
const PolicyOverrides = z
  .object({
    requestsPerSecond: count,
    burst: count,
    upstreamCallsPerMinute: count,
    maxCost: count,
    trustedDocumentsOnly: z.boolean(),
    introspectionAllowed: z.boolean(),
  })
  .partial()
  .strict() satisfies z.ZodType<Partial<ClientPolicy>>;

const ClientEntry = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 of A-Z a-z 0-9 . _ -'),
    audience: z.enum(['first-party', 'partner']),
    keySha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be the SHA-256 of the key, 64 hex digits (never the key itself)').optional(),
    policy: PolicyOverrides.optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.name === 'anonymous') ctx.addIssue({ code: 'custom', path: ['name'], message: '"anonymous" is reserved for callers that name no client' });
    if (c.audience === 'partner' && !c.keySha256) ctx.addIssue({ code: 'custom', path: ['keySha256'], message: 'is required for a partner' });
    if (c.audience === 'first-party' && c.keySha256) ctx.addIssue({ code: 'custom', path: ['keySha256'], message: 'is for partners; a first-party app names itself with apollographql-client-name' });
  });

const ClientsFileSchema = z
  .object({
    defaults: z.object({ 'first-party': PolicyOverrides.optional(), partner: PolicyOverrides.optional() }).strict().optional(),
    anonymous: PolicyOverrides.optional(),
    clients: z.array(ClientEntry).default([]),
  })
  .strict()
  .superRefine(
    (file, ctx) => {
      // Runs even when entries have problems of their own (`when`), so every problem is named in one pass.
      const names = new Set<string>();
      const keys = new Set<string>();
      (Array.isArray(file.clients) ? file.clients : []).forEach((c: Partial<z.infer<typeof ClientEntry>> | undefined, i) => {
        if (typeof c?.name === 'string' && names.has(c.name)) ctx.addIssue({ code: 'custom', path: ['clients', i, 'name'], message: 'is used by another client' });
        if (typeof c?.name === 'string') names.add(c.name);
        const key = typeof c?.keySha256 === 'string' ? c.keySha256.toLowerCase() : undefined;
        if (key && keys.has(key)) ctx.addIssue({ code: 'custom', path: ['clients', i, 'keySha256'], message: 'is used by another client' });
        if (key) keys.add(key);
      });
    },
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  );

/** Reads and validates CLIENTS_FILE (JSON or YAML; YAML 1.2 reads JSON too); throws naming every problem at once. */
export function loadClientsFile(path: string): ClientsDirectory {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([`CLIENTS_FILE: cannot be read (${codeOf(err) ?? 'error'})`]);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new ConfigError([`CLIENTS_FILE: is neither JSON nor YAML (${messageOf(err).split('\n')[0]})`]);
  }
  return clientsDirectory(raw);
}

/** Validates a parsed clients file and merges each client's policy over its audience's defaults. */
export function clientsDirectory(raw: unknown) {
  const parsed = ClientsFileSchema.safeParse(raw ?? {});
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `CLIENTS_FILE ${formatPath(i.path) || '(root)'}: ${i.message}`));
  const file = parsed.data;
  const problems: string[] = [];
  const merge = (audience: Audience, where: string, ...layers: Array<z.infer<typeof PolicyOverrides> | undefined>): ClientPolicy => {
    const policy = Object.assign({}, DEFAULT_POLICIES[audience], ...layers.filter(Boolean)) as ClientPolicy;
    if (policy.burst < policy.requestsPerSecond) problems.push(`CLIENTS_FILE ${where}: burst (${policy.burst}) must be at least requestsPerSecond (${policy.requestsPerSecond})`);
    return policy;
  };
  const byKeyHash = new Map<string, KnownClient>();
  const firstParty = new Map<string, KnownClient>();
  const all: KnownClient[] = [];
  file.clients.forEach((c, i) => {
    const client: KnownClient = { name: c.name, audience: c.audience, policy: merge(c.audience, `clients[${i}]`, file.defaults?.[c.audience], c.policy) };
    all.push(client);
    if (c.keySha256) byKeyHash.set(c.keySha256.toLowerCase(), client);
    else firstParty.set(c.name, client);
  });
  // Callers that name no client: refused (401) when the file has no anonymous policy.
  const anonymous: KnownClient | undefined = file.anonymous ? { name: 'anonymous', audience: 'anonymous', policy: merge('anonymous', 'anonymous', file.anonymous) } : undefined;
  if (anonymous) all.push(anonymous);
  if (problems.length > 0) throw new ConfigError(problems);
  return { byKeyHash, firstParty, ...(anonymous ? { anonymous } : {}), all };
}
