import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { inspectConfig } from '../src/config.ts';
import { imageEnvironment, mountHolding, stopSeconds } from './deploy-run-needs.ts';

/**
 * deploy/compose/: the compose file is valid by the Compose Specification's own JSON schema (a copy
 * in test/vendor/compose-spec, so this runs offline), before and after its variables are filled in
 * from .env.example, and the settings that must agree across its files do: the issuer, the client,
 * the UI's origin and the API's address, as Stratum, Dex and the UI each see them; and Stratum's
 * runs have writable space and the time a stop during a run takes.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const folder = path.join(root, 'deploy', 'compose');
const read = (file: string) => fs.readFileSync(path.join(folder, file), 'utf8');

const schema = JSON.parse(fs.readFileSync(path.join(root, 'test', 'vendor', 'compose-spec', 'compose-spec.json'), 'utf8')) as Record<
  string,
  unknown
>;
// The schema names draft-07 by an https address Ajv does not know by that spelling; Ajv's default is draft-07.
delete schema.$schema;
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

/** The problems the schema finds, one line each. */
function schemaProblems(document: unknown): string[] {
  return validate(document) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** Variables of a .env file. */
function dotenv(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match?.[1] !== undefined) values[match[1]] = match[2] ?? '';
  }
  return values;
}

/** Compose's interpolation: ${VAR}, ${VAR:-default} and ${VAR:?error} (which fails when VAR is unset or empty). */
function interpolate(text: string, variables: Record<string, string>): string {
  return text.replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_all, name: string, kind: string | undefined, operand: string) => {
    const value = variables[name];
    if (value !== undefined && value !== '') return value;
    if (kind === '-') return operand;
    if (kind === '?') throw new Error(`${name}: ${operand}`);
    return '';
  });
}

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  profiles?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  stop_grace_period?: string;
  read_only?: boolean;
  tmpfs?: string[];
  networks?: Record<string, { aliases?: string[] }>;
}
const raw = read('compose.yaml');
const compose = parse(raw) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
const services = compose.services;
const stratum = services.stratum ?? assert.fail('no stratum service');
const example = dotenv(read('.env.example'));
const ui = (() => {
  const sandbox = { window: {} as { _env_?: Record<string, string> } };
  vm.runInNewContext(read('env-config.js'), sandbox);
  return sandbox.window._env_ ?? assert.fail('env-config.js sets no window._env_');
})();
const dex = parse(read('dex.yaml')) as {
  issuer: string;
  web: { allowedOrigins: string[] };
  staticClients: { id: string; public: boolean; redirectURIs: string[] }[];
  staticPasswords: { groups?: string[] }[];
};

/** Seconds in a Compose duration (1m30s, 90s, 1h). */
function durationSeconds(duration: string): number {
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(h|m|s|ms|us)/g)];
  assert.equal(parts.map((p) => p[0]).join(''), duration, `a duration: ${duration}`);
  const unit = { h: 3600, m: 60, s: 1, ms: 0.001, us: 0.000001 } as const;
  return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2] as keyof typeof unit], 0);
}

/** Stratum's environment as the service sees it, the variables of .env.example filled in: the image's, then the service's. */
function stratumEnvironment(): Record<string, string> {
  const filled = { ...example, POSTGRES_PASSWORD: 'example', STRATUM_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') };
  const service = (parse(interpolate(raw, filled)) as { services: Record<string, Service> }).services.stratum;
  const environment = imageEnvironment(fs.readFileSync(path.join(root, 'Containerfile'), 'utf8'));
  for (const [name, value] of Object.entries(service?.environment ?? {})) environment[name] = value;
  return environment;
}

describe('the compose file', () => {
  it('is valid by the Compose Specification schema, as written and with the variables of .env.example filled in', () => {
    assert.deepEqual(schemaProblems(compose), []);
    const filled = { ...example, POSTGRES_PASSWORD: 'example', STRATUM_ENCRYPTION_KEY: 'k'.repeat(44) };
    assert.deepEqual(schemaProblems(parse(interpolate(raw, filled))), []);
    // The schema does refuse what Compose refuses: misspelt keys, a value of the wrong type.
    assert.notDeepEqual(schemaProblems({ ...compose, servcies: {} }), []);
    assert.notDeepEqual(schemaProblems({ services: { stratum: { ...stratum, enviroment: {} } } }), []);
    assert.notDeepEqual(schemaProblems({ services: { stratum: { ...stratum, image: 5 } } }), []);
  });

  it('refuses to start without the database password and the encryption key, and holds no secret of its own', () => {
    const filled = { ...example, POSTGRES_PASSWORD: 'example', STRATUM_ENCRYPTION_KEY: 'k'.repeat(44) };
    assert.throws(() => interpolate(raw, { ...filled, POSTGRES_PASSWORD: '' }), /POSTGRES_PASSWORD/);
    assert.throws(() => interpolate(raw, { ...filled, STRATUM_ENCRYPTION_KEY: '' }), /STRATUM_ENCRYPTION_KEY/);
    assert.equal(example.POSTGRES_PASSWORD, '', '.env.example leaves the password to the operator');
    assert.equal(example.STRATUM_ENCRYPTION_KEY, '', '.env.example leaves the key to the operator');
    const environment = stratum.environment ?? {};
    assert.match(environment.STRATUM_ENCRYPTION_KEY ?? '', /^\$\{STRATUM_ENCRYPTION_KEY:\?/);
    assert.equal(environment.DATABASE_URL, 'postgres://stratum:${POSTGRES_PASSWORD}@postgres:5432/stratum');
  });

  it('starts Stratum from the Containerfile once PostgreSQL is ready, on a read-only root', () => {
    assert.equal(fs.existsSync(path.resolve(folder, stratum.build?.context ?? '', stratum.build?.dockerfile ?? '')), true);
    assert.deepEqual(stratum.depends_on, { postgres: { condition: 'service_healthy' } });
    assert.ok(services.postgres?.image?.includes('postgres:1'), 'PostgreSQL 15 or later');
    assert.equal(stratum.read_only, true);
    assert.equal(stratum.profiles, undefined, 'Stratum and PostgreSQL start without a profile');
  });

  it('gives a stop during a run its whole time before the kill: the runs interrupted, then requests finished', () => {
    const { config, problems } = inspectConfig(stratumEnvironment());
    assert.deepEqual(problems, []);
    const grace = durationSeconds(stratum.stop_grace_period ?? '10s');
    assert.ok(grace >= stopSeconds(config), `stop_grace_period ${grace} s < ${stopSeconds(config)} s`);
    // The sum follows the settings: twice the step grace would no longer fit.
    const doubled = inspectConfig({ ...stratumEnvironment(), STRATUM_STEP_GRACE_SECONDS: String(config.runs.graceMs / 500) }).config;
    assert.ok(grace < stopSeconds(doubled));
  });

  it('keeps the runs and tools folders on a named volume, writable under the read-only root, and /tmp writable', () => {
    const { runsDir, toolsDir } = inspectConfig(stratumEnvironment()).config.runs;
    const mounts = (stratum.volumes ?? []).map((v) => {
      const [source = '', target = '', mode = 'rw'] = v.split(':');
      return { path: target, source, mode };
    });
    for (const folder of [runsDir, toolsDir]) {
      const mount = mountHolding(mounts, folder) ?? assert.fail(`no volume at ${folder} or above it: the root is read-only`);
      assert.ok(!mount.mode.split(',').includes('ro'), `${folder} is mounted read-only`);
      assert.ok(Object.keys(compose.volumes ?? {}).includes(mount.source), `${mount.source} is a named volume, kept across recreations`);
    }
    assert.ok(stratum.tmpfs?.includes('/tmp'), "Terraform downloads providers' archives to /tmp");
  });

  it('the ui profile runs the web UI and Dex, with one issuer, one client and one origin in every file', () => {
    const webUi = services['terrakube-ui'] ?? assert.fail('no terrakube-ui service');
    assert.deepEqual(webUi.profiles, ['ui']);
    assert.deepEqual(services.dex?.profiles, ['ui']);
    assert.ok(webUi.volumes?.some((v) => v.startsWith('./env-config.js:/usr/share/nginx/html/env-config.js')));

    // One issuer: the UI's authority, Dex's issuer and Stratum's, reached by the same name from the browser and from Stratum.
    assert.equal(ui.REACT_APP_AUTHORITY, dex.issuer);
    assert.equal(example.STRATUM_OIDC_ISSUER, dex.issuer);
    const issuer = new URL(dex.issuer);
    assert.ok(issuer.hostname.endsWith('.localhost'), 'a browser sends *.localhost to this machine');
    assert.deepEqual(services.dex.networks?.default?.aliases, [issuer.hostname]);
    assert.ok(services.dex.ports?.includes(`127.0.0.1:${issuer.port}:${issuer.port}`));

    // One client: public (PKCE), the UI's client id and Stratum's audience, redirecting to the UI.
    const client = dex.staticClients.find((c) => c.id === ui.REACT_APP_CLIENT_ID) ?? assert.fail('Dex has no client for the UI');
    assert.equal(client.public, true);
    assert.equal(example.STRATUM_OIDC_AUDIENCE, client.id);
    assert.ok(client.redirectURIs.includes(ui.REACT_APP_REDIRECT_URI ?? ''));
    assert.ok((ui.REACT_APP_SCOPE ?? '').split(' ').includes('groups'), 'the UI asks for the groups Stratum reads');
    assert.equal(example.STRATUM_OIDC_GROUPS_CLAIM, 'groups');
    assert.ok(
      dex.staticPasswords.some((p) => p.groups?.includes('STRATUM_ADMIN')),
      'someone can sign in as an administrator',
    );

    // One origin: the UI's address is the allowed CORS origin at Stratum and at Dex, and the port the UI is published on.
    const origin = new URL(ui.REACT_APP_REDIRECT_URI ?? '').origin;
    assert.equal(example.STRATUM_CORS_ORIGINS, origin);
    assert.deepEqual(dex.web.allowedOrigins, [origin]);
    assert.ok(webUi.ports?.includes(`127.0.0.1:${new URL(origin).port}:8080`));

    // The API address the browser uses is Stratum's published port.
    const api = new URL(ui.REACT_APP_TERRAKUBE_API_URL ?? '');
    assert.equal(api.pathname, '/api/v1/');
    assert.ok(stratum.ports?.includes(`127.0.0.1:\${STRATUM_PORT:-${api.port}}:8080`));
  });
});
