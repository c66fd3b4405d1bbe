/**
 * The Helm chart in k8s/helm/fetcher, checked with a real Helm (lint and template) over a matrix of
 * values files; every rendered object is validated against its Kubernetes or CRD schema, then the
 * rules that matter in production are asserted on the objects themselves.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CHART_DIR, helm, helmBinary, type K8sObject, type Loose, renderChart, renderNotes, validateObject } from './helm';

const CI = join(CHART_DIR, 'ci');
const MATRIX: [string, string[]][] = [
  ['defaults', []],
  ['KEDA on', [join(CI, 'keda-values.yaml')]],
  ['ingress on', [join(CI, 'ingress-values.yaml')]],
  ['existing secret', [join(CI, 'existing-secret-values.yaml')]],
  ['multi-tenant', [join(CI, 'multi-tenant-values.yaml')]],
];

/** Names an app may only receive from the Secret. The chart refuses them as plain values. */
const SECRET_NAME = /(^APP_ENC_KEY$|^APP_ENC_KEY_PREVIOUS$|PASSWORD|PASSWD|SECRET|_PASS$|API_KEY|TOKEN|ACCESS_KEY|_SSL_KEY$|PRIVATE_KEY|^KEDA_RABBITMQ_HOST$)/;

const defaults = parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as Record<string, Loose>;

function find(objects: K8sObject[], kind: string, component?: string): K8sObject[] {
  return objects.filter((o) => o.kind === kind && (component === undefined || o.metadata.labels?.['app.kubernetes.io/component'] === component));
}

function one(objects: K8sObject[], kind: string, component: string): K8sObject {
  const found = find(objects, kind, component);
  if (found.length !== 1) throw new Error(`expected one ${kind} for ${component}, found ${found.length}`);
  return found[0];
}

function kinds(objects: K8sObject[]): string[] {
  return objects.map((o) => `${o.kind}/${o.metadata.labels?.['app.kubernetes.io/component'] ?? '-'}`).sort();
}

/** The ConfigMap an app's container loads through envFrom. */
function envOf(objects: K8sObject[], deployment: K8sObject): Record<string, string> {
  const container = deployment.spec.template.spec.containers[0];
  const refs = (container.envFrom as { configMapRef?: { name: string } }[]).filter((r) => r.configMapRef).map((r) => r.configMapRef!.name);
  expect(refs).toHaveLength(1);
  const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === refs[0]);
  expect(configMap).toBeDefined();
  return configMap!.data ?? {};
}

function portNumber(container: Loose, name: string): number {
  const port = (container.ports as { name: string; containerPort: number }[]).find((p) => p.name === name);
  if (!port) throw new Error(`no container port named ${name}`);
  return port.containerPort;
}

describe('the Helm chart k8s/helm/fetcher', () => {
  beforeAll(() => {
    helmBinary();
  });

  it('uses the real Helm 3.17 binary from the npm package', () => {
    const result = helm(['version', '--short']);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^v3\.17\./);
  });

  it('has a schema check with teeth: a wrongly typed field is reported', () => {
    const [deployment] = renderChart([]).filter((o) => o.kind === 'Deployment');
    expect(() => validateObject({ ...deployment, spec: { ...deployment.spec, replicas: 'two' } })).toThrow('spec/replicas must be integer');
    expect(() => validateObject({ apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: { name: 'x' }, spec: { scaleTargetRef: { name: 'x' } } }))
      .toThrow('must have required property triggers');
  });

  it.each(MATRIX)('passes helm lint --strict with %s', (_name, files) => {
    const result = helm(['lint', '--strict', CHART_DIR, ...files.flatMap((f) => ['-f', f])]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(result.status).toBe(0);
  });

  describe.each(MATRIX)('rendered with %s', (name, files) => {
    let objects: K8sObject[];

    beforeAll(() => {
      objects = renderChart(files);
    });

    it('renders only objects that pass their Kubernetes or CRD schema', () => {
      expect(objects.length).toBeGreaterThan(0);
      for (const object of objects) validateObject(object);
    });

    it('renders the expected kinds', () => {
      const always = ['ConfigMap/manager', 'ConfigMap/worker', 'Deployment/manager', 'Deployment/worker', 'NetworkPolicy/manager', 'NetworkPolicy/worker',
        'PodDisruptionBudget/manager', 'PodDisruptionBudget/worker', 'Service/manager', 'Service/worker', 'ServiceAccount/shared'];
      const extra: Record<string, string[]> = {
        defaults: ['HorizontalPodAutoscaler/worker'],
        'KEDA on': ['ScaledObject/worker', 'ServiceMonitor/manager', 'ServiceMonitor/worker', 'TriggerAuthentication/worker'],
        'ingress on': ['HorizontalPodAutoscaler/manager', 'HorizontalPodAutoscaler/worker', 'Ingress/manager'],
        'existing secret': ['HorizontalPodAutoscaler/worker'],
        'multi-tenant': ['HorizontalPodAutoscaler/worker'],
      };
      expect(kinds(objects)).toEqual([...always, ...extra[name]].sort());
    });

    it('probes /health (liveness) and /readyz (readiness) on the port each app listens on', () => {
      const manager = one(objects, 'Deployment', 'manager').spec.template.spec.containers[0];
      const managerEnv = envOf(objects, one(objects, 'Deployment', 'manager'));
      expect(manager.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
      expect(manager.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(portNumber(manager, 'http')).toBe(4006);
      expect(managerEnv.SERVER_ADDRESS).toBe(':4006');

      const worker = one(objects, 'Deployment', 'worker').spec.template.spec.containers[0];
      const workerEnv = envOf(objects, one(objects, 'Deployment', 'worker'));
      expect(worker.livenessProbe.httpGet).toEqual({ path: '/health', port: 'health' });
      expect(worker.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'health' });
      expect(portNumber(worker, 'health')).toBe(4007);
      expect(workerEnv.HEALTH_PORT).toBe('4007');

      // The Services reach those same named ports.
      expect(one(objects, 'Service', 'manager').spec.ports[0].targetPort).toBe('http');
      expect(one(objects, 'Service', 'worker').spec.ports[0].targetPort).toBe('health');
    });

    it('gives each pod the time to drain: preStop sleep + READYZ_DRAIN_DELAY_SEC + the longest job or request', () => {
      const values = files.length ? (parse(readFileSync(files[0], 'utf8')) as Record<string, Loose>) : {};
      const maxJob = (values.worker?.maxJobDurationSeconds ?? defaults.worker.maxJobDurationSeconds) as number;
      const maxRequest = (values.manager?.requestTimeoutSeconds ?? defaults.manager.requestTimeoutSeconds) as number;
      for (const [component, work] of [['manager', maxRequest], ['worker', maxJob]] as const) {
        const deployment = one(objects, 'Deployment', component);
        const pod = deployment.spec.template.spec;
        const [command, seconds] = pod.containers[0].lifecycle.preStop.exec.command as string[];
        expect(command).toBe('sleep');
        const drain = Number(envOf(objects, deployment).READYZ_DRAIN_DELAY_SEC);
        expect(drain).toBeGreaterThanOrEqual(1);
        expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(Number(seconds) + drain + work);
      }
      // The numbers a default install gets: 5 + 12 + 360 (+15) for the Worker, 5 + 12 + 30 (+5) for the Manager.
      if (name === 'defaults') {
        expect(one(objects, 'Deployment', 'worker').spec.template.spec.terminationGracePeriodSeconds).toBe(392);
        expect(one(objects, 'Deployment', 'manager').spec.template.spec.terminationGracePeriodSeconds).toBe(52);
      }
    });

    it('renders no Secret, keeps secret variables out of every ConfigMap, and loads them from the existing Secret', () => {
      expect(find(objects, 'Secret')).toEqual([]);
      for (const configMap of find(objects, 'ConfigMap')) {
        expect(Object.keys(configMap.data ?? {}).filter((key) => SECRET_NAME.test(key))).toEqual([]);
        expect(Object.values(configMap.data ?? {}).filter((value) => /:\/\/[^/\s:@]+:[^/\s@]+@/.test(value))).toEqual([]);
      }
      const secretName = name === 'existing secret' ? 'fetcher-production-secrets' : 'fetcher-secrets';
      for (const component of ['manager', 'worker']) {
        const container = one(objects, 'Deployment', component).spec.template.spec.containers[0];
        expect(container.envFrom).toContainEqual({ secretRef: { name: secretName } });
        // The only explicit variable: the tenant-manager API key, by reference to its Secret key.
        if (name === 'multi-tenant') {
          expect(container.env).toEqual([{ name: 'MULTI_TENANT_SERVICE_API_KEY', valueFrom: { secretKeyRef: { name: 'fetcher-tenant-manager', key: 'api-key' } } }]);
        } else {
          expect(container.env).toBeUndefined();
        }
      }
    });

    it('runs every container unprivileged: non-root, read-only root filesystem, no privilege escalation, no capabilities', () => {
      for (const deployment of find(objects, 'Deployment')) {
        const pod = deployment.spec.template.spec;
        expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } });
        expect(pod.automountServiceAccountToken).toBe(false);
        for (const container of pod.containers) {
          expect(container.securityContext).toMatchObject({
            runAsNonRoot: true,
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            privileged: false,
            capabilities: { drop: ['ALL'] },
          });
          // Every writable path is an emptyDir.
          const emptyDirs = new Set((pod.volumes as { name: string; emptyDir?: object }[]).filter((v) => v.emptyDir).map((v) => v.name));
          for (const mount of container.volumeMounts as { name: string }[]) expect(emptyDirs.has(mount.name)).toBe(true);
        }
      }
      const worker = one(objects, 'Deployment', 'worker');
      const spoolMount = (worker.spec.template.spec.containers[0].volumeMounts as { name: string; mountPath: string }[]).find((m) => m.name === 'spool');
      expect(spoolMount?.mountPath).toBe(envOf(objects, worker).RESULT_SPOOL_DIR);
      expect((worker.spec.template.spec.volumes as { name: string; emptyDir?: { sizeLimit?: string } }[]).find((v) => v.name === 'spool')?.emptyDir?.sizeLimit).toBeDefined();
    });

    it('prints NOTES that say which Secret to create and how long a Worker may take to stop', () => {
      const notes = renderNotes(files);
      const secretName = name === 'existing secret' ? 'fetcher-production-secrets' : 'fetcher-secrets';
      expect(notes).toContain(`kubectl -n fetcher create secret generic ${secretName}`);
      expect(notes).toContain('--from-literal=APP_ENC_KEY="$(openssl rand -base64 32)"');
      expect(notes.includes('KEDA_RABBITMQ_HOST')).toBe(name === 'KEDA on');
      const grace = one(objects, 'Deployment', 'worker').spec.template.spec.terminationGracePeriodSeconds as number;
      expect(notes).toContain(`it has ${grace} s (terminationGracePeriodSeconds)`);
      expect(notes).not.toMatch(/<no value>|%!/);
    });

    it('points Services, disruption budgets, network policies and autoscalers at the right pods', () => {
      for (const component of ['manager', 'worker']) {
        const deployment = one(objects, 'Deployment', component);
        const podLabels = deployment.spec.template.metadata.labels as Record<string, string>;
        expect(podLabels).toMatchObject(deployment.spec.selector.matchLabels);
        expect(podLabels).toMatchObject(one(objects, 'Service', component).spec.selector);
        expect(podLabels).toMatchObject(one(objects, 'PodDisruptionBudget', component).spec.selector.matchLabels);
        expect(podLabels).toMatchObject(one(objects, 'NetworkPolicy', component).spec.podSelector.matchLabels);
        for (const hpa of find(objects, 'HorizontalPodAutoscaler', component)) {
          expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
          expect(hpa.spec.metrics[0].resource.name).toBe('cpu');
          expect(deployment.spec.replicas).toBeUndefined();
        }
      }
    });
  });

  describe('with KEDA on', () => {
    let objects: K8sObject[];

    beforeAll(() => {
      objects = renderChart([join(CI, 'keda-values.yaml')]);
    });

    it('scales the Worker Deployment on the length of the queue the apps use, instead of the CPU autoscaler', () => {
      const worker = one(objects, 'Deployment', 'worker');
      const scaledObject = one(objects, 'ScaledObject', 'worker');
      expect(scaledObject.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: worker.metadata.name });
      const [trigger] = scaledObject.spec.triggers as { type: string; metadata: Record<string, string>; authenticationRef: { name: string } }[];
      expect(trigger.type).toBe('rabbitmq');
      expect(trigger.metadata).toMatchObject({ mode: 'QueueLength', value: '20', queueName: envOf(objects, worker).RABBITMQ_FETCHER_WORK_QUEUE });
      expect(scaledObject.spec).toMatchObject({ minReplicaCount: 1, maxReplicaCount: 30, fallback: { failureThreshold: 3, replicas: 2 } });
      expect(find(objects, 'HorizontalPodAutoscaler', 'worker')).toEqual([]);
      expect(worker.spec.replicas).toBeUndefined();
      // KEDA's AMQP URL comes from the same Secret, never from values.
      const auth = one(objects, 'TriggerAuthentication', 'worker');
      expect(trigger.authenticationRef.name).toBe(auth.metadata.name);
      expect(auth.spec.secretTargetRef).toEqual([{ parameter: 'host', name: 'fetcher-secrets', key: 'KEDA_RABBITMQ_HOST' }]);
      expect(JSON.stringify(scaledObject)).not.toMatch(/amqps?:\/\//);
    });

    it('scrapes /metrics on each app\'s own port', () => {
      expect(one(objects, 'ServiceMonitor', 'manager').spec.endpoints).toEqual([expect.objectContaining({ port: 'http', path: '/metrics' })]);
      expect(one(objects, 'ServiceMonitor', 'worker').spec.endpoints).toEqual([expect.objectContaining({ port: 'health', path: '/metrics' })]);
    });
  });

  describe('in multi-tenant mode', () => {
    const MT = join(CI, 'multi-tenant-values.yaml');
    const env = (objects: K8sObject[], app: string) => envOf(objects, one(objects, 'Deployment', app));
    /** A minimal multi-tenant install: what the services need and nothing more. */
    const MINIMAL = ['config.envName=staging', 'multiTenant.enabled=true', 'multiTenant.url=https://tm.example', 'multiTenant.redis.host=events', 'multiTenant.jwt.jwksUrl=https://auth.example/jwks.json'];

    it('renders the MULTI_TENANT_* settings into both apps, the token settings only into the Manager', () => {
      const objects = renderChart([MT]);
      const values = (parse(readFileSync(MT, 'utf8')) as Record<string, Loose>).multiTenant;
      for (const app of ['manager', 'worker']) {
        expect(env(objects, app)).toMatchObject({
          ENV_NAME: 'production',
          MULTI_TENANT_ENABLED: 'true',
          MULTI_TENANT_URL: 'https://tenant-manager.platform.svc.cluster.local',
          MULTI_TENANT_ALLOW_INSECURE_HTTP: 'false',
          MULTI_TENANT_REDIS_HOST: 'tenant-events.platform.svc.cluster.local',
          MULTI_TENANT_REDIS_PORT: '6380',
          MULTI_TENANT_REDIS_TLS: 'true',
          MULTI_TENANT_MAX_TENANT_POOLS: '8',
          MULTI_TENANT_IDLE_TIMEOUT_SEC: '300',
          MULTI_TENANT_CACHE_TTL_SEC: '120',
          MULTI_TENANT_TIMEOUT: '30',
          MULTI_TENANT_CIRCUIT_BREAKER_THRESHOLD: '5',
          MULTI_TENANT_CIRCUIT_BREAKER_TIMEOUT_SEC: '30',
          HOST_SAFETY_ALLOW_PRIVATE: 'false',
          MONGO_NAME: 'fetcher',
        });
        expect(env(objects, app).MULTI_TENANT_SERVICE_API_KEY).toBeUndefined();
      }
      expect(env(objects, 'manager')).toMatchObject({
        MULTI_TENANT_JWT_PUBLIC_KEY: values.jwt.publicKey,
        MULTI_TENANT_JWT_ALGORITHMS: 'ES256',
        MULTI_TENANT_JWT_ISSUER: 'https://auth.example.com',
        MULTI_TENANT_JWT_AUDIENCE: 'fetcher',
      });
      expect(env(objects, 'manager').MULTI_TENANT_JWKS_URL).toBeUndefined();
      expect(Object.keys(env(objects, 'worker')).filter((key) => key.startsWith('MULTI_TENANT_JWT') || key === 'MULTI_TENANT_JWKS_URL')).toEqual([]);
      expect(env(objects, 'worker').MULTI_TENANT_RECONCILE_INTERVAL_SEC).toBe('60');
      expect(env(objects, 'manager').MULTI_TENANT_RECONCILE_INTERVAL_SEC).toBeUndefined();
    });

    it('needs no single-tenant MongoDB or RabbitMQ address: their hosts and ports are not rendered', () => {
      const objects = renderChart([], [...MINIMAL, 'config.mongo.host=', 'config.rabbitmq.host=']);
      for (const app of ['manager', 'worker']) {
        for (const key of ['MONGO_HOST', 'MONGO_PORT', 'RABBITMQ_HOST', 'RABBITMQ_PORT_AMQP']) expect(env(objects, app)[key]).toBeUndefined();
        expect(env(objects, app).RABBITMQ_FETCHER_WORK_QUEUE).toBe('fetcher.extract-external-data.queue');
      }
      expect(env(objects, 'manager')).toMatchObject({ MULTI_TENANT_JWKS_URL: 'https://auth.example/jwks.json', MULTI_TENANT_JWT_ALGORITHMS: 'RS256,ES256' });
      expect(env(objects, 'manager').MULTI_TENANT_JWT_ISSUER).toBeUndefined();
      expect(env(objects, 'manager').MULTI_TENANT_JWT_AUDIENCE).toBeUndefined();
      // The API key defaults to the chart's Secret, still by explicit reference.
      expect(one(objects, 'Deployment', 'worker').spec.template.spec.containers[0].env)
        .toEqual([{ name: 'MULTI_TENANT_SERVICE_API_KEY', valueFrom: { secretKeyRef: { name: 'fetcher-secrets', key: 'MULTI_TENANT_SERVICE_API_KEY' } } }]);
      for (const object of objects) validateObject(object);
    });

    it('allows an http tenant-manager only with the explicit opt-in', () => {
      expect(() => renderChart([], [...MINIMAL, 'multiTenant.url=http://tm:8080'])).toThrow('multiTenant.url (MULTI_TENANT_URL) must use https (set multiTenant.allowInsecureHttp=true to allow http)');
      const objects = renderChart([], [...MINIMAL, 'multiTenant.url=http://tm:8080', 'multiTenant.allowInsecureHttp=true']);
      expect(env(objects, 'worker')).toMatchObject({ MULTI_TENANT_URL: 'http://tm:8080', MULTI_TENANT_ALLOW_INSECURE_HTTP: 'true' });
    });

    it('still needs the MongoDB and RabbitMQ hosts in single-tenant mode', () => {
      expect(() => renderChart([], ['config.mongo.host='])).toThrow('config.mongo.host (MONGO_HOST) is required unless multiTenant.enabled is true');
      expect(() => renderChart([], ['config.rabbitmq.host='])).toThrow('config.rabbitmq.host (RABBITMQ_HOST) is required unless multiTenant.enabled is true');
    });

    it('renders nothing multi-tenant while it is off', () => {
      const objects = renderChart([]);
      for (const app of ['manager', 'worker']) {
        expect(Object.keys(env(objects, app)).filter((key) => key.startsWith('MULTI_TENANT_'))).toEqual([]);
        expect(env(objects, app)).toMatchObject({ MONGO_HOST: 'mongodb', RABBITMQ_HOST: 'rabbitmq', HOST_SAFETY_ALLOW_PRIVATE: 'true' });
      }
    });

    it('leaves the token settings out when only the Worker is deployed', () => {
      const objects = renderChart([], [...MINIMAL, 'multiTenant.jwt.jwksUrl=', 'manager.enabled=false']);
      expect(env(objects, 'worker').MULTI_TENANT_ENABLED).toBe('true');
      expect(find(objects, 'Deployment', 'manager')).toEqual([]);
    });

    it.each([
      ['multiTenant.enabled=true', 'multiTenant.url (MULTI_TENANT_URL) is required when multiTenant.enabled is true'],
      ['multiTenant.url=', 'multiTenant.url (MULTI_TENANT_URL) is required when multiTenant.enabled is true'],
      ['multiTenant.url=tm.example', 'multiTenant.url (MULTI_TENANT_URL) must be an http(s) URL'],
      ['multiTenant.apiKeySecret.key=', 'multiTenant.apiKeySecret.key is required when multiTenant.enabled is true'],
      ['multiTenant.redis.host=', 'multiTenant.redis.host (MULTI_TENANT_REDIS_HOST) is required when multiTenant.enabled is true'],
      ['config.envName=dev', 'config.envName (ENV_NAME) must be staging or production when multiTenant.enabled is true: it names the tenant event channel'],
      ['config.envName=production-eu', 'config.envName (ENV_NAME) must be staging or production'],
      ['multiTenant.jwt.jwksUrl=', 'multiTenant.jwt.jwksUrl (MULTI_TENANT_JWKS_URL) or multiTenant.jwt.publicKey (MULTI_TENANT_JWT_PUBLIC_KEY) is required'],
      ['multiTenant.jwt.publicKey=LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0=', 'must not be set together with multiTenant.jwt.jwksUrl: choose one key source'],
      ['multiTenant.jwt.algorithms={RS256,HS256}', 'multiTenant.jwt.algorithms must not contain none or an HMAC algorithm'],
      ['multiTenant.jwt.algorithms={none}', 'multiTenant.jwt.algorithms must not contain none or an HMAC algorithm'],
      ['worker.keda.enabled=true', 'worker.keda.enabled must be false when multiTenant.enabled is true'],
      ['config.extraEnv.MULTI_TENANT_REDIS_CA_CERT=pem', 'config.extraEnv.MULTI_TENANT_REDIS_CA_CERT: set multi-tenant mode with the multiTenant.* values instead (a custom CA is not supported'],
      ['worker.extraEnv.MULTI_TENANT_URL=https://other', 'worker.extraEnv.MULTI_TENANT_URL: set multi-tenant mode with the multiTenant.* values instead'],
      ['config.deploymentMode=saas', 'multiTenant.redis.tls (MULTI_TENANT_REDIS_TLS) must be true when config.deploymentMode=saas'],
    ])('refuses at render time what the services refuse at startup (%s)', (pair, message) => {
      const sets = pair === 'multiTenant.enabled=true' ? [pair] : [...MINIMAL, pair];
      expect(() => renderChart([], sets)).toThrow(message);
    });

    it.each([
      [['multiTenant.jwt.publicKey=bm90IGEga2V5'], 'multiTenant.jwt.publicKey (MULTI_TENANT_JWT_PUBLIC_KEY) must be a base64-encoded PEM public key'],
      [['multiTenant.jwt.publicKey=LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t'], 'must be a base64-encoded PEM public key (-----BEGIN PUBLIC KEY-----)'],
      [['multiTenant.url=http://tm:8080', 'multiTenant.allowInsecureHttp=true'], 'multiTenant.url (MULTI_TENANT_URL) must use TLS when config.deploymentMode=saas'],
      [['config.mongo.scheme=mongodb', 'config.mongo.parameters=retryWrites=true'], 'config.mongo.scheme=mongodb+srv or config.mongo.parameters tls=true is required when config.deploymentMode=saas'],
      [['config.rabbitmq.scheme=amqp'], 'config.rabbitmq.scheme must be amqps when config.deploymentMode=saas'],
    ])('refuses a bad token key or a plain-text tenant-manager in SaaS mode (%s)', (sets, message) => {
      expect(() => renderChart([MT], sets)).toThrow(message);
    });

    it('refuses a multi-tenant value the schema does not know', () => {
      expect(() => renderChart([MT], ['multiTenant.apiKey=inline'])).toThrow('values don\'t meet the specifications of the schema');
    });
  });

  it('routes the Ingress to the Manager Service', () => {
    const objects = renderChart([join(CI, 'ingress-values.yaml')]);
    const ingress = one(objects, 'Ingress', 'manager');
    expect(ingress.spec.rules[0].http.paths[0].backend.service).toEqual({ name: one(objects, 'Service', 'manager').metadata.name, port: { name: 'http' } });
    expect(ingress.spec.tls).toEqual([{ hosts: ['fetcher.internal.example.com'], secretName: 'fetcher-tls' }]);
  });

  it('starts the Worker, and only the Worker, with its young-generation cap, which a value can change or drop', () => {
    const env = (objects: K8sObject[], app: string) => envOf(objects, one(objects, 'Deployment', app));
    const defaults = renderChart([]);
    expect(env(defaults, 'worker').NODE_OPTIONS).toBe('--max-semi-space-size=4');
    expect(env(defaults, 'manager').NODE_OPTIONS).toBeUndefined();
    const more = renderChart([], ['worker.nodeOptions=--max-semi-space-size=4 --max-old-space-size=512']);
    expect(env(more, 'worker').NODE_OPTIONS).toBe('--max-semi-space-size=4 --max-old-space-size=512');
    expect(env(renderChart([], ['worker.nodeOptions=']), 'worker').NODE_OPTIONS).toBeUndefined();
  });

  it.each([
    ['config.extraEnv.APP_ENC_KEY=abc', 'config.extraEnv'],
    ['manager.extraEnv.MONGO_PASSWORD=abc', 'manager.extraEnv'],
    ['worker.extraEnv.OBJECT_STORAGE_SECRET_KEY=abc', 'worker.extraEnv'],
    ['config.extraEnv.DATASOURCE_X_SSL_KEY=abc', 'config.extraEnv'],
  ])('refuses a secret given as a plain value (%s)', (pair, where) => {
    expect(() => renderChart([], [pair])).toThrow(where);
  });

  it.each([
    'securityContext.readOnlyRootFilesystem=false',
    'securityContext.allowPrivilegeEscalation=true',
    'securityContext.runAsNonRoot=false',
    'podSecurityContext.runAsNonRoot=false',
    'config.readyzDrainDelaySec=0',
    'manager.unknownValue=1',
  ])('refuses values that weaken the pods or are not in values.schema.json (%s)', (pair) => {
    expect(() => renderChart([], [pair])).toThrow('values don\'t meet the specifications of the schema');
  });

  it('documents every value in values.schema.json and in the chart README', () => {
    const schema = JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8')) as SchemaNode;
    const readme = readFileSync(join(CHART_DIR, 'README.md'), 'utf8');
    const paths = leafPaths(defaults);
    expect(paths.length).toBeGreaterThan(80);
    expect(paths.filter((path) => !schemaHas(schema, path))).toEqual([]);
    expect(paths.filter((path) => !readme.includes(`\`${path}\``))).toEqual([]);
  });
});

interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  description?: string;
}

/** Value paths down to the leaves; maps and lists of the default values count as one value. */
function leafPaths(value: Record<string, Loose>, prefix = ''): string[] {
  return Object.entries(value).flatMap(([key, child]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    const nested = child !== null && typeof child === 'object' && !Array.isArray(child) && Object.keys(child as object).length > 0 && !/(Labels|Annotations|annotations|labels|nodeSelector|affinity|extraEnv|seccompProfile|resources)$/.test(key);
    return nested ? leafPaths(child as Record<string, Loose>, path) : [path];
  });
}

function schemaHas(schema: SchemaNode, path: string): boolean {
  let node: SchemaNode | undefined = schema;
  for (const part of path.split('.')) node = node?.properties?.[part];
  return node !== undefined && typeof node.description === 'string' && node.description.length > 0;
}
