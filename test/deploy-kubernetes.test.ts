import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { inspectConfig } from '../src/config.ts';
import { settingNames } from '../src/setting-names.ts';
import { imageEnvironment, mountHolding, stopSeconds } from './deploy-run-needs.ts';

/**
 * deploy/kubernetes/: each overlay rendered by kustomize, and what matters in what it renders:
 * probes on /healthz and /readyz, a non-root pod that matches the image's user, keys only in
 * Secrets, a PodDisruptionBudget that selects the pods, resources from the benchmarks, the metrics
 * port annotated, writable space where runs and tools go, a grace period that covers a stop during a
 * run, and the store's own needs (one replica on a volume, or several on PostgreSQL with the Secret).
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const kustomizations = path.join(root, 'deploy', 'kubernetes');

/**
 * The renderer: a kustomize binary named by STRATUM_TEST_KUSTOMIZE (what .ci/run unpacks where no
 * other is), else kubectl's own kustomize, else a kustomize on PATH. CI has to render: there a
 * missing renderer fails the test rather than skipping it.
 */
function findRenderer(): { command: string; args: string[] } | undefined {
  const candidates = [
    ...(process.env.STRATUM_TEST_KUSTOMIZE === undefined ? [] : [{ command: process.env.STRATUM_TEST_KUSTOMIZE, args: ['build'] }]),
    { command: process.env.STRATUM_TEST_KUBECTL ?? 'kubectl', args: ['kustomize'] },
    { command: 'kustomize', args: ['build'] },
  ];
  const works = (c: { command: string; args: string[] }) =>
    spawnSync(c.command, [...c.args, path.join(kustomizations, 'overlays', 'embedded')], { encoding: 'utf8' }).status === 0;
  return candidates.find(works);
}
const renderer = findRenderer();
const inCi = process.env.CI === 'true';
const skip =
  renderer !== undefined || inCi
    ? false
    : 'no kustomize renders the overlays (kubectl, kustomize, or STRATUM_TEST_KUSTOMIZE naming one; .ci/run finds one): the manifests are not rendered';

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered manifests are read as the plain objects they are */
type Manifest = Record<string, any>;

/** Renders an overlay; the PostgreSQL one from a copy with a secrets.env, as an operator makes it. */
function render(overlay: 'embedded' | 'postgres'): Manifest[] {
  let folder = path.join(kustomizations, 'overlays', overlay);
  if (overlay === 'postgres') {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'stratum-kustomize-'));
    after(() => fs.rmSync(copy, { recursive: true, force: true }));
    fs.cpSync(kustomizations, copy, { recursive: true });
    folder = path.join(copy, 'overlays', 'postgres');
    // A key of the right shape (32 bytes in base64), so the service would take the configuration.
    const key = Buffer.alloc(32, 7).toString('base64');
    fs.writeFileSync(
      path.join(folder, 'secrets.env'),
      `DATABASE_URL=postgres://stratum:pw@db.internal:5432/stratum\nSTRATUM_ENCRYPTION_KEY=${key}\n`,
    );
  }
  const using = renderer ?? assert.fail('CI=true and no kustomize renders the overlays: .ci/run should have found one');
  const result = spawnSync(using.command, [...using.args, folder], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  return parseAllDocuments(result.stdout).map((d) => d.toJS() as Manifest);
}

const one = (manifests: Manifest[], kind: string): Manifest => {
  const found = manifests.filter((m) => m.kind === kind);
  assert.equal(found.length, 1, `one ${kind}`);
  return found[0] as Manifest;
};

/** The highest idle and peak resident memory any benchmark recorded, in MiB. */
function benchmarkMemory(): { idle: number; peak: number } {
  const folder = path.join(root, 'bench', 'results');
  let idle = 0;
  let peak = 0;
  for (const file of fs.readdirSync(folder).filter((f) => f.endsWith('.md'))) {
    const text = fs.readFileSync(path.join(folder, file), 'utf8');
    for (const match of text.matchAll(/Idle RSS (\d+) MiB/g)) idle = Math.max(idle, Number(match[1]));
    for (const line of text.split('\n')) {
      const cells = line.split('|').map((c) => c.trim());
      // The throughput tables end with the peak RSS column.
      if (cells.length === 10 && /^\d+$/.test(cells[8] ?? '')) peak = Math.max(peak, Number(cells[8]));
    }
  }
  assert.ok(idle > 0 && peak > 0, 'the benchmark results give idle and peak memory');
  return { idle, peak };
}

const mebibytes = (quantity: string): number => {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity) ?? assert.fail(`a quantity in Mi or Gi: ${quantity}`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
};

/** What the Containerfile says of the runtime: its user and its data folder. */
const containerfile = fs.readFileSync(path.join(root, 'Containerfile'), 'utf8');
const imageUser = /^USER (\d+):(\d+)$/m.exec(containerfile) ?? assert.fail('no numeric USER in the Containerfile');
const imageDataDir = /STRATUM_DATA_DIR=(\S+)/.exec(containerfile)?.[1] ?? assert.fail('no STRATUM_DATA_DIR in the Containerfile');

/**
 * What runs were measured to need on disk (docs/operations.md, "Sizing"): Terraform 1.11.4 is an
 * 86.4 MiB binary, one per version in the tools folder; a run of a configuration with
 * hashicorp/aws 5.100.0 and no plugin cache unpacks 674 MiB of provider into its folder, after
 * Terraform downloaded the provider's archive (about 141 MiB: its binary zipped here as releases
 * are) to the temporary folder.
 */
const toolVersionMiB = 87;
const toolVersionsKept = 4;
const bigRunMiB = 675;
const bigProviderArchiveMiB = 142;

for (const overlay of ['embedded', 'postgres'] as const) {
  describe(`the Kubernetes overlay ${overlay}`, { skip }, () => {
    const manifests = skip === false ? render(overlay) : [];
    const deployment = () => one(manifests, 'Deployment');
    const pod = () => deployment().spec.template.spec as Manifest;
    const container = () => pod().containers[0] as Manifest;
    const settings = () => one(manifests, 'ConfigMap').data as Record<string, string>;
    /** The container's environment as the service sees it: the image's, then envFrom in order, then env. */
    const environment = (): Record<string, string> => {
      const values = imageEnvironment(containerfile);
      for (const source of (container().envFrom ?? []) as Manifest[]) {
        const from = source.configMapRef ?? source.secretRef;
        const found = manifests.find((m) => m.kind === (source.configMapRef ? 'ConfigMap' : 'Secret') && m.metadata.name === from.name);
        const data = (found?.data ?? {}) as Record<string, string>;
        for (const [name, value] of Object.entries(data))
          values[name] = source.secretRef ? Buffer.from(value, 'base64').toString('utf8') : value;
      }
      for (const variable of (container().env ?? []) as Manifest[])
        if (variable.value !== undefined) values[variable.name] = variable.value;
      return values;
    };
    const config = () => inspectConfig(environment()).config;
    const mounts = () =>
      (container().volumeMounts as Manifest[]).map((m) => ({
        path: String(m.mountPath),
        readOnly: m.readOnly === true,
        volume: pod().volumes.find((v: Manifest) => v.name === m.name) as Manifest,
      }));
    /** The most a volume holds: an emptyDir's sizeLimit, a claim's storage request. */
    const capacityMiB = (volume: Manifest): number => {
      if (volume.emptyDir !== undefined)
        return mebibytes(volume.emptyDir.sizeLimit ?? assert.fail(`emptyDir ${volume.name} without a sizeLimit`));
      const claim = manifests.find(
        (m) => m.kind === 'PersistentVolumeClaim' && m.metadata.name === volume.persistentVolumeClaim?.claimName,
      );
      return mebibytes(claim?.spec.resources.requests.storage ?? assert.fail(`volume ${volume.name} is neither an emptyDir nor a claim`));
    };

    it('probes liveness on /healthz and readiness on /readyz, with a startup probe long enough for migrations', () => {
      const { livenessProbe, readinessProbe, startupProbe } = container();
      assert.equal(livenessProbe.httpGet.path, '/healthz');
      assert.equal(readinessProbe.httpGet.path, '/readyz');
      assert.equal(startupProbe.httpGet.path, '/healthz');
      assert.ok(startupProbe.periodSeconds * startupProbe.failureThreshold >= 300, 'at least five minutes to start');
      const http = container().ports.find((p: Manifest) => p.name === 'http');
      assert.equal(http.containerPort, 8080);
      for (const check of [livenessProbe, readinessProbe, startupProbe]) assert.equal(check.httpGet.port, 'http');
    });

    it('runs as the image user, not root, without privilege escalation, capabilities or a writable root', () => {
      const { securityContext } = pod();
      assert.equal(securityContext.runAsNonRoot, true);
      assert.equal(String(securityContext.runAsUser), imageUser[1]);
      assert.equal(String(securityContext.runAsGroup), imageUser[2]);
      assert.equal(String(securityContext.fsGroup), imageUser[2], 'a volume is writable by the service');
      assert.equal(securityContext.seccompProfile.type, 'RuntimeDefault');
      const own = container().securityContext;
      assert.equal(own.allowPrivilegeEscalation, false);
      assert.equal(own.readOnlyRootFilesystem, true);
      assert.deepEqual(own.capabilities.drop, ['ALL']);
      assert.equal(pod().automountServiceAccountToken, false);
    });

    it('keeps keys, passwords and database addresses out of ConfigMaps and literal environment values', () => {
      const secretish = /KEY|PASSWORD|SECRET|TOKEN|DATABASE_URL/;
      for (const configMap of manifests.filter((m) => m.kind === 'ConfigMap')) {
        for (const name of Object.keys(configMap.data ?? {})) assert.doesNotMatch(name, secretish, `${name} in a ConfigMap`);
      }
      for (const variable of container().env ?? []) {
        assert.ok(variable.valueFrom !== undefined || !secretish.test(String(variable.name)), `${String(variable.name)} as a literal`);
      }
      // Every setting is one Stratum knows: a misspelt one would be ignored.
      for (const name of Object.keys(settings()).filter((n) => n.startsWith('STRATUM_'))) assert.ok(settingNames.includes(name), name);
    });

    it('requests the memory the benchmarks measured, and limits it above their peak with room for the answers budget', () => {
      const { requests, limits } = container().resources;
      const measured = benchmarkMemory();
      assert.ok(requests.cpu !== undefined);
      assert.ok(mebibytes(requests.memory) >= measured.idle, `request ${String(requests.memory)} below the idle ${measured.idle} MiB`);
      // STRATUM_RESPONSE_MEMORY_MIB (128) may be held by answers being built on top of the measured peak.
      assert.ok(mebibytes(limits.memory) >= measured.peak + 128, `limit ${String(limits.memory)} below ${measured.peak} + 128 MiB`);
      const heap = Number(/--max-old-space-size=(\d+)/.exec(settings().NODE_OPTIONS ?? '')?.[1]);
      assert.equal(heap, (mebibytes(limits.memory) * 3) / 4, "V8's heap is three quarters of the limit");
    });

    it('serves metrics on an annotated port', () => {
      const annotations = deployment().spec.template.metadata.annotations as Record<string, string>;
      assert.equal(annotations['prometheus.io/scrape'], 'true');
      assert.equal(annotations['prometheus.io/port'], settings().STRATUM_METRICS_PORT);
      assert.equal(annotations['prometheus.io/path'], '/metrics');
      assert.equal(settings().STRATUM_METRICS_HOST, '0.0.0.0', 'a scraper reaches the pod address');
      assert.ok(
        container().ports.some((p: Manifest) => p.name === 'metrics' && String(p.containerPort) === annotations['prometheus.io/port']),
      );
    });

    it('is configured as the service accepts, with the grace and shutdown settings named where the grace period depends on them', () => {
      assert.deepEqual(inspectConfig(environment()).problems, []);
      assert.equal(config().dataDir, imageDataDir, "the image's data folder");
      for (const name of ['STRATUM_STEP_GRACE_SECONDS', 'STRATUM_SHUTDOWN_TIMEOUT_MS']) assert.ok(settings()[name] !== undefined, name);
    });

    it('gives a stop during a run its whole time before the kill: preStop pause, the runs interrupted, requests finished', () => {
      const [command, pause] = container().lifecycle.preStop.exec.command as [string, string];
      assert.equal(command, 'sleep');
      const needed = Number(pause) + stopSeconds(config());
      assert.ok(
        pod().terminationGracePeriodSeconds >= needed,
        `terminationGracePeriodSeconds ${pod().terminationGracePeriodSeconds} < ${needed}`,
      );
      // The sum follows the settings: twice the step grace would no longer fit.
      const doubled = inspectConfig({ ...environment(), STRATUM_STEP_GRACE_SECONDS: String(config().runs.graceMs / 500) }).config;
      assert.ok(pod().terminationGracePeriodSeconds < Number(pause) + stopSeconds(doubled));
    });

    it('runs jobs on writable disk: the runs and tools folders on a volume sized for the measured runs, and room in /tmp for provider downloads', () => {
      assert.equal(container().securityContext.readOnlyRootFilesystem, true, 'only the volumes are writable');
      const { runsDir, toolsDir } = config().runs;
      const needMiB = new Map<string, number>();
      for (const [folder, mib] of [
        [runsDir, config().runs.concurrent * bigRunMiB],
        [toolsDir, toolVersionsKept * toolVersionMiB],
      ] as const) {
        const mount = mountHolding(mounts(), folder) ?? assert.fail(`nothing writable is mounted at ${folder} or above it`);
        assert.equal(mount.readOnly, false, `${folder} is mounted read-only`);
        assert.notEqual(
          mount.volume.emptyDir?.medium,
          'Memory',
          `${folder} in memory would take from the memory limit sized for processes`,
        );
        needMiB.set(mount.volume.name, (needMiB.get(mount.volume.name) ?? 0) + mib);
      }
      for (const [name, mib] of needMiB) {
        const volume = pod().volumes.find((v: Manifest) => v.name === name) as Manifest;
        assert.ok(capacityMiB(volume) >= mib, `volume ${name} holds ${capacityMiB(volume)} MiB, runs and tools need ${mib}`);
      }
      const temporary = mountHolding(mounts(), '/tmp') ?? assert.fail('no writable /tmp');
      assert.ok(
        capacityMiB(temporary.volume) >= config().runs.concurrent * bigProviderArchiveMiB,
        `/tmp holds ${capacityMiB(temporary.volume)} MiB: a big provider's archive per run at once does not fit`,
      );
    });

    it('has a Service and a PodDisruptionBudget that select the pods', () => {
      const labels = deployment().spec.template.metadata.labels as Record<string, string>;
      const selects = (selector: Record<string, string>) =>
        Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
      assert.ok(selects(deployment().spec.selector.matchLabels));
      assert.ok(selects(one(manifests, 'Service').spec.selector));
      assert.equal(one(manifests, 'Service').spec.ports[0].targetPort, 'http');
      assert.ok(selects(one(manifests, 'PodDisruptionBudget').spec.selector.matchLabels));
    });

    if (overlay === 'embedded') {
      it('runs one replica, replaced by stopping it first, on a persistent volume at the data folder; the budget lets a drain evict it', () => {
        assert.equal(deployment().spec.replicas, 1);
        assert.equal(deployment().spec.strategy.type, 'Recreate', 'two pods never hold the data folder at once');
        const mount = container().volumeMounts.find((m: Manifest) => m.mountPath === imageDataDir);
        const volume = pod().volumes.find((v: Manifest) => v.name === mount?.name);
        assert.equal(volume?.persistentVolumeClaim?.claimName, one(manifests, 'PersistentVolumeClaim').metadata.name);
        assert.equal(one(manifests, 'PodDisruptionBudget').spec.maxUnavailable, 1);
        assert.equal(manifests.filter((m) => m.kind === 'Secret').length, 0, 'the keys are generated into the volume');
      });
    } else {
      it('runs several replicas with the database address and encryption key from a Secret, and keeps one up through disruptions', () => {
        assert.ok(deployment().spec.replicas >= 2);
        assert.equal(deployment().spec.strategy.rollingUpdate.maxUnavailable, 0);
        assert.equal(one(manifests, 'PodDisruptionBudget').spec.minAvailable, 1);
        const secret = one(manifests, 'Secret');
        assert.deepEqual(Object.keys(secret.data).sort(), ['DATABASE_URL', 'STRATUM_ENCRYPTION_KEY']);
        const sources = container().envFrom as Manifest[];
        assert.ok(sources.some((s) => s.secretRef?.name === secret.metadata.name));
        assert.ok(sources.some((s) => s.configMapRef?.name === one(manifests, 'ConfigMap').metadata.name));
        assert.equal(manifests.filter((m) => m.kind === 'PersistentVolumeClaim').length, 0);
      });
    }
  });
}
