import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ConfigSchema, loadConfig } from '../../src/config';
import { startStack, type Stack } from '../support/stack';

const DEPLOY = join(__dirname, '..', '..', 'deploy');

interface Manifest {
  file: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  /** Loosely typed: each test checks the fields it needs. */
  spec?: any;
  data?: Record<string, string>;
}

function loadManifests(): Manifest[] {
  return readdirSync(DEPLOY)
    .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(DEPLOY, file), 'utf8')).map((doc) => {
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

  it('commits no Secret: REDIS_URL comes from a Secret created out of band', () => {
    expect(manifests.some((m) => m.kind === 'Secret')).toBe(false);
    const redis = container.env.find((e: { name: string }) => e.name === 'REDIS_URL');
    expect(redis.valueFrom.secretKeyRef).toMatchObject({ name: 'tablegraph-redis', key: 'url' });
    expect(JSON.stringify(configMap.data)).not.toMatch(/redis|password|token/i);
  });

  it('probes readiness on /readyz and liveness on /healthz, on the port the gateway listens on', () => {
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    const gatewayPort = loadConfig(configMap.data).port;
    expect(namedPort(container.readinessProbe.httpGet.port)).toBe(gatewayPort);
    expect(namedPort(container.livenessProbe.httpGet.port)).toBe(gatewayPort);
    expect(deployment.spec.template.metadata.annotations['prometheus.io/port']).toBe(String(gatewayPort));
  });

  it('feeds the container the ConfigMap, whose every key is a valid setting of the gateway', () => {
    expect(container.envFrom).toEqual([{ configMapRef: { name: configMap.metadata.name } }]);
    const unknown = Object.keys(configMap.data!).filter((key) => !(key in ConfigSchema.shape));
    expect(unknown).toEqual([]);
    expect(() => loadConfig(configMap.data)).not.toThrow();
  });

  it('gives the pod time to drain: the grace period exceeds the shutdown delay plus the drain timeout', () => {
    const config = loadConfig(configMap.data);
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(config.shutdownDelayMs + config.drainTimeoutMs);
  });

  it("leaves the heap to Node and the gateway (sized from the memory limit), one worker per pod", () => {
    const flags = (container.env as Array<{ name: string; value?: string }>).filter((e) => e.name === 'NODE_OPTIONS').map((e) => e.value ?? '');
    expect(flags.filter((f) => /max-old-space-size|max-heap-size/.test(f))).toEqual([]);
    expect(container.resources.limits.memory).toEqual(expect.any(String));
    expect(loadConfig(configMap.data).workers).toBe(1);
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
