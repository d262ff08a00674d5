import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ConfigSchema, loadConfig } from '../../src/config';
import { startSandbox, SAMPLE, SANDBOX_CREDENTIALS, type Sandbox } from '../../src/sandbox';
import { spawnGateway, type GatewayProcess } from '../support/gatewayProcess';
import { freePort } from '../support/net';
import { startStack, type Stack } from '../support/stack';

const DEPLOY = join(__dirname, '..', '..', 'deploy');
const REDIS_COMPONENT = join(DEPLOY, 'components', 'redis');
const SENTINEL_COMPONENT = join(DEPLOY, 'components', 'redis-sentinel');
const INGRESS_COMPONENT = join(DEPLOY, 'components', 'ingress-nginx');
const ROOT = join(DEPLOY, '..');

/** The runtime stage of the Dockerfile: its WORKDIR and the repository folders it copies from the build stage (by their path in the image). */
function imageLayout(): { workdir: string; copied: Array<{ from: string; to: string }> } {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ').split('\n').map((l) => l.trim());
  const runtime = lines.slice(lines.map((l) => /^FROM /i.test(l)).lastIndexOf(true));
  const workdir = runtime.find((l) => /^WORKDIR /i.test(l))!.split(/\s+/)[1];
  const copied = runtime
    .filter((l) => /^COPY --from=\w+ /i.test(l))
    .map((l) => l.split(/\s+/).slice(2))
    .map(([from, to]) => ({ from: from.replace(/^\/app\//, ''), to: join(workdir, to) }));
  return { workdir, copied };
}

interface Manifest {
  file: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  /** Loosely typed: each test checks the fields it needs. */
  spec?: any;
  data?: Record<string, string>;
}

function loadManifests(dir = DEPLOY): Manifest[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((doc) => {
        if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
        return { file, ...(doc.toJS() as Omit<Manifest, 'file'>) };
      }),
    );
}

describe('deploy/ (Kubernetes manifests)', () => {
  const manifests = loadManifests();
  const one = (kind: string): Manifest => {
    const found = manifests.filter((m) => m.kind === kind);
    expect(found).toHaveLength(1);
    return found[0];
  };
  const deployment = one('Deployment');
  const configMap = one('ConfigMap');
  const container = deployment.spec.template.spec.containers[0];
  /** What a pod's environment holds: the ConfigMap, and REDIS_URL from its Secret (any Redis address will do here). */
  const podEnv = { ...configMap.data, REDIS_URL: 'redis://:password@tablegraph-redis:6379/0' };
  const namedPort = (name: string | number): number =>
    typeof name === 'number' ? name : container.ports.find((p: { name: string }) => p.name === name).containerPort;

  it('parses, and holds a Deployment, Service, HorizontalPodAutoscaler, PodDisruptionBudget and ConfigMap', () => {
    expect(manifests.map((m) => m.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Service']);
  });

  it('lists every manifest in the kustomization, and nothing else', () => {
    const kustomization = parseAllDocuments(readFileSync(join(DEPLOY, 'kustomization.yaml'), 'utf8'))[0].toJS() as { resources: string[] };
    const files = [...new Set(manifests.map((m) => m.file))].sort();
    expect([...kustomization.resources].sort()).toEqual(files);
  });

  it('says in the kustomization how to bring Redis: the component of this repository, or a managed one', () => {
    const text = readFileSync(join(DEPLOY, 'kustomization.yaml'), 'utf8');
    expect(text).toMatch(/^# components:\n#\s+- components\/redis$/m);
    expect(existsSync(join(REDIS_COMPONENT, 'kustomization.yaml'))).toBe(true);
    expect(text).toContain('managed Redis');
    expect(text).toContain("kubectl create secret generic tablegraph-redis --from-literal=url=");
    expect(text).toContain('kubectl create secret generic tablegraph-redis --from-literal=password=');
    expect(text).toContain('components/redis-sentinel');
    expect(existsSync(join(SENTINEL_COMPONENT, 'kustomization.yaml'))).toBe(true);
  });

  it('commits no Secret: REDIS_URL comes from a Secret created out of band', () => {
    expect(manifests.some((m) => m.kind === 'Secret')).toBe(false);
    const redis = container.env.find((e: { name: string }) => e.name === 'REDIS_URL');
    expect(redis.valueFrom.secretKeyRef).toMatchObject({ name: 'tablegraph-redis', key: 'url' });
    expect(JSON.stringify(configMap.data)).not.toMatch(/redis|password|token/i);
  });

  it('requires REDIS_URL: a pod without the Secret does not start, and the gateway refuses production without it', () => {
    const redis = container.env.find((e: { name: string }) => e.name === 'REDIS_URL');
    expect(redis.valueFrom.secretKeyRef.optional).toBeUndefined();
    expect(configMap.data!.NODE_ENV).toBe('production');
    expect(configMap.data!.SINGLE_REPLICA).toBeUndefined();
    expect(() => loadConfig(configMap.data)).toThrow(/REDIS_URL: is required when NODE_ENV is production/);
  });

  it('probes readiness on /readyz and liveness on /healthz, on the port the gateway listens on', () => {
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    const gatewayPort = loadConfig(podEnv).port;
    expect(namedPort(container.readinessProbe.httpGet.port)).toBe(gatewayPort);
    expect(namedPort(container.livenessProbe.httpGet.port)).toBe(gatewayPort);
    expect(deployment.spec.template.metadata.annotations['prometheus.io/port']).toBe(String(gatewayPort));
  });

  it('feeds the container the ConfigMap, whose every key is a valid setting of the gateway', () => {
    expect(container.envFrom).toEqual([{ configMapRef: { name: configMap.metadata.name } }]);
    const unknown = Object.keys(configMap.data!).filter((key) => !(key in ConfigSchema.shape));
    expect(unknown).toEqual([]);
    expect(() => loadConfig(podEnv)).not.toThrow();
  });

  it('gives the pod time to drain: the grace period exceeds the shutdown delay plus the drain timeout', () => {
    const config = loadConfig(podEnv);
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(config.shutdownDelayMs + config.drainTimeoutMs);
  });

  it("runs npm start's command, and leaves the heap's size to Node (sized from the memory limit)", () => {
    const pkg = JSON.parse(readFileSync(join(DEPLOY, '..', 'package.json'), 'utf8')) as { scripts: { start: string } };
    expect((container.args as string[]).join(' ')).toBe(pkg.scripts.start);
    const flags = (container.env as Array<{ name: string; value?: string }>).filter((e) => e.name === 'NODE_OPTIONS').map((e) => e.value ?? '');
    expect([...flags, ...(container.args as string[])].filter((f) => /max-old-space-size|max-heap-size/.test(f))).toEqual([]);
    expect(container.resources.limits.memory).toEqual(expect.any(String));
  });

  it('requests resources and runs as a non-root user without privileges', () => {
    expect(container.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
    expect(deployment.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: expect.any(Number) });
    expect(deployment.spec.template.spec.securityContext.runAsUser).not.toBe(0);
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
  });

  it('points the Service, autoscaler and disruption budget at the Deployment and its pods', () => {
    const podLabels = deployment.spec.template.metadata.labels;
    for (const [k, v] of Object.entries(deployment.spec.selector.matchLabels as Record<string, string>)) expect(podLabels[k]).toBe(v);
    const service = one('Service');
    for (const [k, v] of Object.entries(service.spec.selector as Record<string, string>)) expect(podLabels[k]).toBe(v);
    expect(namedPort(service.spec.ports[0].targetPort)).toBe(container.ports[0].containerPort);
    const pdb = one('PodDisruptionBudget');
    for (const [k, v] of Object.entries(pdb.spec.selector.matchLabels as Record<string, string>)) expect(podLabels[k]).toBe(v);
    const hpa = one('HorizontalPodAutoscaler');
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: deployment.metadata.name });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    // The autoscaler owns the replica count; a fixed one would fight it on every apply.
    expect(deployment.spec.replicas).toBeUndefined();
  });

  it('trusts the manifest the image carries: TRUSTED_DOCUMENTS names a file the runtime stage copies from the build', () => {
    const paths = configMap.data!.TRUSTED_DOCUMENTS.split(',');
    expect(paths.length).toBeGreaterThan(0);
    const { copied } = imageLayout();
    for (const path of paths) {
      const copy = copied.find((c) => path.startsWith(`${c.to}/`));
      expect({ path, copiedBy: copy && 'COPY --from=build' }).toEqual({ path, copiedBy: 'COPY --from=build' });
      // The same file in the repository (codegen writes it; the build stage runs codegen again).
      expect(existsSync(join(ROOT, copy!.from, path.slice(copy!.to.length + 1)))).toBe(true);
    }
    expect(loadConfig(podEnv).trustedDocuments.mode).not.toBe('off');
  });

  describe('a gateway started with the ConfigMap\'s environment, the sandbox as its upstreams', () => {
    let sandbox: Sandbox;
    let gateway: GatewayProcess;
    let url: string;
    beforeAll(async () => {
      sandbox = await startSandbox();
      const { workdir } = imageLayout();
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      gateway = spawnGateway(join('src', 'main.ts'), {
        ...configMap.data,
        // The image's paths, mapped to the repository.
        TRUSTED_DOCUMENTS: configMap.data!.TRUSTED_DOCUMENTS.split(',').map((p) => join(ROOT, p.slice(workdir.length + 1))).join(','),
        RESERVATION_BASE_URL: sandbox.reservationUrl,
        POS_BASE_URL: sandbox.posUrl,
        // One process here; the pods take REDIS_URL from their Secret.
        SINGLE_REPLICA: 'true',
        PORT: String(port),
        HOST: '127.0.0.1',
      });
      await gateway.waitForLog('gateway ready', 20_000);
    }, 30_000);
    afterAll(async () => {
      gateway?.kill();
      await sandbox?.close();
    });

    it('serves a day view by its trusted id, as the apps send it', async () => {
      const manifest = JSON.parse(readFileSync(join(ROOT, 'operations', 'generated', 'persisted-query-manifest.json'), 'utf8')) as { operations: Array<{ id: string; name: string }> };
      const dayView = manifest.operations.find((o) => o.name === 'DayView')!;
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...SANDBOX_CREDENTIALS.laTerrazza },
        body: JSON.stringify({ variables: { date: SAMPLE.laTerrazza.busyDate(sandbox.state) }, extensions: { persistedQuery: { version: 1, sha256Hash: dayView.id } } }),
      });
      const body = (await res.json()) as { data?: { reservations: { nodes: unknown[] } }; errors?: unknown };
      expect({ status: res.status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
      expect(body.data!.reservations.nodes).toHaveLength(SAMPLE.laTerrazza.busyDateReservationCount);
      // The line is written as the gateway's event loop turns, just after the answer: waited for, not read at once.
      const line = await gateway.waitForLog('graphql request');
      expect(line).toMatchObject({ operationName: 'DayView', document: 'trusted', documentHash: dayView.id });
    });
  });

  describe('components/ingress-nginx (an Ingress for ingress-nginx)', () => {
    const component = parseAllDocuments(readFileSync(join(INGRESS_COMPONENT, 'kustomization.yaml'), 'utf8'))[0].toJS() as { kind: string; resources: string[] };
    const [ingress] = loadManifests(INGRESS_COMPONENT);
    const annotations = ingress.metadata.annotations ?? {};
    const text = readFileSync(join(INGRESS_COMPONENT, 'kustomization.yaml'), 'utf8');

    it('is a kustomize Component of one Ingress, named in the base kustomization', () => {
      expect(component.kind).toBe('Component');
      expect(component.resources).toEqual([ingress.file]);
      expect(ingress.kind).toBe('Ingress');
      expect(readFileSync(join(DEPLOY, 'kustomization.yaml'), 'utf8')).toMatch(/^#\s+- components\/ingress-nginx\b/m);
    });

    it('sends /graphql to the gateway\'s Service, by a port the Service has', () => {
      const service = one('Service');
      expect(ingress.spec.ingressClassName).toBe('nginx');
      const [path] = ingress.spec.rules[0].http.paths;
      expect(path.path).toBe('/graphql');
      expect(path.backend.service.name).toBe(service.metadata.name);
      expect(service.spec.ports.map((p: { name: string }) => p.name)).toContain(path.backend.service.port.name);
    });

    it('keeps quiet sockets and streams open well past the 12 s ping, and passes streamed parts unbuffered', () => {
      for (const name of ['proxy-read-timeout', 'proxy-send-timeout']) expect(Number(annotations[`nginx.ingress.kubernetes.io/${name}`])).toBeGreaterThanOrEqual(60);
      expect(annotations['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
    });

    it('explains that underscore headers are a setting of the controller\'s ConfigMap, not an annotation', () => {
      expect(Object.keys(annotations).filter((a) => /underscore/.test(a))).toEqual([]);
      expect(text).toContain('enable-underscores-in-headers: "true"');
      expect(text).toMatch(/controller's ConfigMap/);
    });
  });

  describe('components/redis (a Redis in the cluster)', () => {
    const component = parseAllDocuments(readFileSync(join(REDIS_COMPONENT, 'kustomization.yaml'), 'utf8'))[0].toJS() as {
      kind: string;
      resources: string[];
      patches: Array<{ path: string }>;
    };
    const parts = loadManifests(REDIS_COMPONENT);
    const statefulSet = parts.find((m) => m.kind === 'StatefulSet')!;
    const redisService = parts.find((m) => m.kind === 'Service')!;
    const redis = statefulSet.spec.template.spec.containers[0];
    const patch = parts.find((m) => m.kind === 'Deployment')!;
    type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } | null };

    it('is a kustomize Component of one StatefulSet and one Service, with a patch of the gateway and no Secret', () => {
      expect(component.kind).toBe('Component');
      expect(parts.map((m) => m.kind).sort()).toEqual(['Deployment', 'Service', 'StatefulSet']);
      expect([...component.resources, ...component.patches.map((p) => p.path)].sort()).toEqual([...new Set(parts.map((m) => m.file))].sort());
      expect(component.patches.map((p) => p.path)).toEqual([patch.file]);
    });

    it('runs one Redis with a persistent volume, every write in the append-only file and no eviction', () => {
      expect(statefulSet.spec.replicas).toBe(1);
      expect(statefulSet.spec.serviceName).toBe(redisService.metadata.name);
      const [claim] = statefulSet.spec.volumeClaimTemplates;
      expect(claim.spec.accessModes).toEqual(['ReadWriteOnce']);
      expect(claim.spec.resources.requests.storage).toEqual(expect.any(String));
      expect(redis.volumeMounts).toEqual([{ name: claim.metadata.name, mountPath: '/data' }]);
      const args = (redis.args as string[]).join(' ');
      expect(args).toContain('--appendonly yes');
      expect(args).toContain('--dir /data');
      expect(args).toContain('--maxmemory-policy noeviction');
    });

    it('requires the password of the Secret, never written in the manifests', () => {
      const args = redis.args as string[];
      expect(args[args.indexOf('--requirepass') + 1]).toBe('$(REDIS_PASSWORD)');
      const password = (redis.env as EnvVar[]).find((e) => e.name === 'REDIS_PASSWORD');
      expect(password?.valueFrom?.secretKeyRef).toEqual({ name: 'tablegraph-redis', key: 'password' });
      expect(parts.some((m) => m.kind === 'Secret')).toBe(false);
    });

    it('serves on its Service, selected by the pods\' labels and apart from the gateway\'s', () => {
      const podLabels = statefulSet.spec.template.metadata.labels as Record<string, string>;
      for (const [k, v] of Object.entries(redisService.spec.selector as Record<string, string>)) expect(podLabels[k]).toBe(v);
      expect(podLabels['app.kubernetes.io/name']).not.toBe(deployment.spec.template.metadata.labels['app.kubernetes.io/name']);
      const port = redisService.spec.ports[0];
      expect(redis.ports.find((p: { name: string }) => p.name === port.targetPort).containerPort).toBe(port.port);
    });

    it('points the gateway\'s REDIS_URL at that Service with the password defined before it, in place of the Secret\'s url', () => {
      expect(patch.metadata.name).toBe(deployment.metadata.name);
      const patched = patch.spec.template.spec.containers[0];
      expect(patched.name).toBe(container.name);
      const env = patched.env as EnvVar[];
      expect(env.map((e) => e.name)).toEqual(['REDIS_PASSWORD', 'REDIS_URL']);
      expect(env[0].valueFrom?.secretKeyRef).toEqual({ name: 'tablegraph-redis', key: 'password' });
      const url = env[1].value!;
      // `valueFrom: null` removes the Deployment's secretKeyRef when the patch merges.
      expect(env[1].valueFrom).toBeNull();
      expect(url).toBe(`redis://:$(REDIS_PASSWORD)@${redisService.metadata.name}:${redisService.spec.ports[0].port}/0`);
      expect(loadConfig({ ...configMap.data, REDIS_URL: url.replace('$(REDIS_PASSWORD)', 'a1b2c3') }).redisUrl).toBe('redis://:a1b2c3@tablegraph-redis:6379/0');
    });
  });

  describe('components/redis-sentinel (a Redis in the cluster that fails over)', () => {
    const component = parseAllDocuments(readFileSync(join(SENTINEL_COMPONENT, 'kustomization.yaml'), 'utf8'))[0].toJS() as {
      kind: string;
      resources: string[];
      patches: Array<{ path: string }>;
    };
    const parts = loadManifests(SENTINEL_COMPONENT);
    const byName = (kind: string, name: string): Manifest => {
      const found = parts.find((m) => m.kind === kind && m.metadata.name === name);
      if (!found) throw new Error(`no ${kind} ${name} in components/redis-sentinel`);
      return found;
    };
    const data = byName('StatefulSet', 'tablegraph-redis');
    const sentinels = byName('StatefulSet', 'tablegraph-redis-sentinel');
    const dataService = byName('Service', data.spec.serviceName);
    const sentinelService = byName('Service', sentinels.spec.serviceName);
    const redis = data.spec.template.spec.containers[0];
    const sentinel = sentinels.spec.template.spec.containers[0];
    /** The start script of a container (`sh -c <script>`): what it writes into the server's config. */
    const scriptOf = (c: { command: string[]; args: string[] }) => {
      expect(c.command).toEqual(['sh', '-c']);
      return c.args[0];
    };
    const patch = parts.find((m) => m.kind === 'Deployment')!;
    const patched = patch.spec.template.spec.containers[0];
    type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } | null };
    const patchedEnv = (name: string) => (patched.env as EnvVar[]).find((e) => e.name === name);
    const monitored = /^\s*echo "sentinel monitor (\S+) \$primary (\d+) (\d+)"$/m.exec(scriptOf(sentinel));

    it('is a kustomize Component of two StatefulSets and their Services, with a patch of the gateway and no Secret', () => {
      expect(component.kind).toBe('Component');
      expect(parts.map((m) => m.kind).sort()).toEqual(['Deployment', 'Service', 'Service', 'StatefulSet', 'StatefulSet']);
      expect([...component.resources, ...component.patches.map((p) => p.path)].sort()).toEqual([...new Set(parts.map((m) => m.file))].sort());
      expect(component.patches.map((p) => p.path)).toEqual([patch.file]);
      expect(parts.some((m) => m.kind === 'Secret')).toBe(false);
    });

    it('runs a primary and two replicas, each persistent, every write in the append-only file and no eviction', () => {
      expect(data.spec.replicas).toBe(3);
      const [claim] = data.spec.volumeClaimTemplates;
      expect(claim.spec.accessModes).toEqual(['ReadWriteOnce']);
      expect(redis.volumeMounts).toContainEqual({ name: claim.metadata.name, mountPath: '/data' });
      const script = scriptOf(redis);
      for (const line of ['dir /data', 'appendonly yes', 'maxmemory-policy noeviction']) expect(script).toContain(`echo "${line}"`);
      // A node restarting asks the Sentinels for the primary and replicates it; only pod 0's very first start is a primary.
      expect(script).toContain('sentinel get-master-addr-by-name');
      expect(script).toContain('echo "replicaof $primary 6379"');
      expect(script).toContain('tablegraph-redis-0.tablegraph-redis');
      expect(script).toMatch(/exec redis-server \/conf\/redis.conf$/m);
    });

    it('runs three Sentinels, two of which must agree, watching the primary under the name the gateway asks for', () => {
      expect(sentinels.spec.replicas).toBe(3);
      expect(monitored).not.toBeNull();
      const [, name, port, quorum] = monitored!;
      expect(Number(quorum)).toBe(2);
      expect(Number(port)).toBe(dataService.spec.ports[0].port);
      expect(patchedEnv('REDIS_SENTINEL_NAME')?.value).toBe(name);
      // Detection leaves room for the failover itself within the contract's 15 s.
      const downAfter = Number(new RegExp(`sentinel down-after-milliseconds ${name} (\\d+)`).exec(scriptOf(sentinel))?.[1]);
      expect(downAfter).toBeGreaterThan(0);
      expect(downAfter).toBeLessThanOrEqual(10_000);
      expect(scriptOf(sentinel)).toMatch(/exec redis-sentinel \/conf\/sentinel.conf$/m);
    });

    it('takes every password from the Secret: requirepass and masterauth on the nodes, auth-pass on the Sentinels', () => {
      for (const c of [redis, sentinel]) {
        const password = (c.env as EnvVar[]).find((e) => e.name === 'REDIS_PASSWORD');
        expect(password?.valueFrom?.secretKeyRef).toEqual({ name: 'tablegraph-redis', key: 'password' });
      }
      expect(scriptOf(redis)).toContain('echo "requirepass $REDIS_PASSWORD"');
      expect(scriptOf(redis)).toContain('echo "masterauth $REDIS_PASSWORD"');
      expect(scriptOf(sentinel)).toContain(`echo "sentinel auth-pass ${monitored![1]} $REDIS_PASSWORD"`);
      // Written to a file at start, never on a command line.
      expect([...redis.args, ...sentinel.args].join('\n')).not.toMatch(/--requirepass|--masterauth/);
    });

    it('names every pod through a headless Service that its pods\' labels select, ports matching', () => {
      for (const [set, service, container] of [[data, dataService, redis], [sentinels, sentinelService, sentinel]] as const) {
        expect(service.spec.clusterIP).toBe('None');
        expect(service.spec.publishNotReadyAddresses).toBe(true);
        const podLabels = set.spec.template.metadata.labels as Record<string, string>;
        for (const [k, v] of Object.entries(service.spec.selector as Record<string, string>)) expect(podLabels[k]).toBe(v);
        for (const [k, v] of Object.entries(set.spec.selector.matchLabels as Record<string, string>)) expect(podLabels[k]).toBe(v);
        const port = service.spec.ports[0];
        expect(container.ports.find((p: { name: string }) => p.name === port.targetPort).containerPort).toBe(port.port);
      }
    });

    it("gives the gateway every Sentinel's address, their name for the primary, and the password through REDIS_URL", () => {
      expect(patch.metadata.name).toBe(deployment.metadata.name);
      expect(patched.name).toBe(container.name);
      expect((patched.env as EnvVar[]).map((e) => e.name)).toEqual(['REDIS_PASSWORD', 'REDIS_URL', 'REDIS_SENTINELS', 'REDIS_SENTINEL_NAME']);
      const port = sentinelService.spec.ports[0].port;
      const pods = Array.from({ length: sentinels.spec.replicas }, (_v, i) => `${sentinels.metadata.name}-${i}.${sentinelService.metadata.name}:${port}`);
      expect(patchedEnv('REDIS_SENTINELS')?.value?.split(',')).toEqual(pods);
      // REDIS_URL lends its password and database (CONTRACT.md, Process); the Secret's url is replaced (`valueFrom: null`).
      const url = patchedEnv('REDIS_URL')!;
      expect(url.valueFrom).toBeNull();
      expect(url.value).toMatch(/^redis:\/\/:\$\(REDIS_PASSWORD\)@[\w.-]+:6379\/0$/);
      expect(patchedEnv('REDIS_PASSWORD')?.valueFrom?.secretKeyRef).toEqual({ name: 'tablegraph-redis', key: 'password' });
      const env = { ...configMap.data, REDIS_URL: url.value!.replace('$(REDIS_PASSWORD)', 'a1b2c3'), REDIS_SENTINELS: patchedEnv('REDIS_SENTINELS')!.value!, REDIS_SENTINEL_NAME: patchedEnv('REDIS_SENTINEL_NAME')!.value! };
      expect(() => loadConfig(env)).not.toThrow();
    });

    it('runs its pods as a non-root user without privileges, with a read-only root file system', () => {
      for (const set of [data, sentinels]) {
        expect(set.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true });
        expect(set.spec.template.spec.securityContext.runAsUser).not.toBe(0);
        expect(set.spec.template.spec.containers[0].securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
      }
    });
  });

  describe('against a running gateway', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack();
    });
    afterAll(() => stack.close());

    it('gets 200 from each probe path and from the scrape path', async () => {
      const paths = [container.readinessProbe.httpGet.path, container.livenessProbe.httpGet.path, deployment.spec.template.metadata.annotations['prometheus.io/path']];
      for (const path of paths) expect({ path, status: (await fetch(`${stack.url}${path}`)).status }).toEqual({ path, status: 200 });
    });
  });
});
