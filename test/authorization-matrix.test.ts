import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { TokenSigner } from '../src/auth/tokens.ts';
import { GitServer } from './git-server.ts';
import {
  adminGroup,
  createCollection,
  createOrganization,
  createRecord,
  createTemplate,
  createVcs,
  createWorkspace,
  describeEachStore,
  providerBuild,
  writeFirstState,
  type Response,
} from './harness.ts';

/**
 * Every endpoint of the interface, and those decisions.md adds, called by every kind of caller:
 * each cell asserts the exact status, and every read asserts no id of another organization leaks.
 * Two callers belong to no team of the organization but hold a grant: on its workspace (Team
 * Access), or on the project that workspace is in.
 */

const callers = [
  'no token',
  'malformed token',
  'token signed by another key',
  'expired token',
  'revoked team token',
  'alg none token',
  'non-member',
  'member without the flag',
  'member with the flag',
  'granted on the workspace',
  'granted on its project',
  'administrator',
] as const;
type CallerKind = (typeof callers)[number];
const refusedCallers = callers.slice(0, 6);

type Capability = 'manageTemplate' | 'manageCollection' | 'manageWorkspace' | 'manageVcs' | 'manageModule' | 'manageProvider' | 'planJob';
/** The flag that writes each type need; undefined for the types only administrators write. */
const capabilityOf: Record<string, Capability | undefined> = {
  organization: undefined,
  team: undefined,
  tag: undefined,
  globalvar: undefined,
  agent: undefined,
  project: 'manageWorkspace',
  workspacetag: 'manageWorkspace',
  ssh: 'manageVcs',
  schedule: 'manageWorkspace',
  webhook: 'manageWorkspace',
  webhook_event: 'manageWorkspace',
  // Records of the whole service: administrators write them.
  action: undefined,
  federated: undefined,
  federated_claim: undefined,
  // Atomic operations: the matrix sends one that creates a workspace.
  operations: 'manageWorkspace',
  template: 'manageTemplate',
  collection: 'manageCollection',
  item: 'manageCollection',
  reference: 'manageCollection',
  workspace: 'manageWorkspace',
  variable: 'manageWorkspace',
  vcs: 'manageVcs',
  access: 'manageWorkspace',
  project_access: 'manageWorkspace',
  notification_configuration: 'manageWorkspace',
  notification_trigger: 'manageWorkspace',
  module: 'manageModule',
  module_version: 'manageModule',
  provider: 'manageProvider',
  version: 'manageProvider',
  implementation: 'manageProvider',
  // Starting a job needs planJob; cancelling one planJob or approveJob; deleting one, administrators.
  job: 'planJob',
  // Steps are only read.
  step: undefined,
  // Written by the state backend alone: read as its workspace, never written through the API.
  history: undefined,
  // Written by every change alone; read by teams with readAuditTrail (every flag, in the shared fixture), never written.
  audit_event: undefined,
  audit_trail: undefined,
};

const jobPath = '/api/v1/organization/{organizationId}/job';
const jobRecordPath = `${jobPath}/{jobId}`;

/** One organization with a record of every type, and teams granting or withholding one flag. */
interface Fixture {
  ids: Record<string, string>;
  /** The second workspace, for a new reference (one per collection and workspace). */
  spareWorkspace: string;
  /** A second tag, for a new workspace tag (one per workspace and tag). */
  spareTag: string;
  tokens: Record<CallerKind, string | null>;
  withGroup: string;
  memberSubject: string;
}

interface Endpoint {
  method: string;
  path: string;
  /** Whether it reads or changes a link (`/relationships/...`) rather than a record. */
  relationship: boolean;
  /** The type whose records the endpoint reads or writes. */
  type: string;
  /** What an allowed caller gets. */
  success: number;
}

/** The type named by a path parameter like `{workspaceId}`. */
const typeOfParameter = (parameter: string) => parameter.replace(/^\{|Id\}$/g, '');
/** The type whose records a collection path segment lists: Terrakube lists workspace tags at `workspaceTag`, project grants at `projectAccess`, claims at `claims`, webhook events at `events`, notification configurations and their triggers at `notificationConfiguration` and `triggers`, the templates a configuration is narrowed to at `templates`. */
const typeOfSegment = (segment: string, parent: string | undefined) =>
  // A module lists its versions at `version`, as a provider lists its own (of another type).
  segment === 'version' && parent === '{moduleId}'
    ? 'module_version'
    : ((
        {
          workspaceTag: 'workspacetag',
          projectAccess: 'project_access',
          claims: 'federated_claim',
          events: 'webhook_event',
          notificationConfiguration: 'notification_configuration',
          triggers: 'notification_trigger',
          templates: 'template',
          auditEvent: 'audit_event',
        } as Record<string, string>
      )[segment] ?? segment);

/** Records of the whole service, in no organization: actions any caller reads, federated credentials only administrators. */
const readByEveryone = new Set(['action']);
const readByAdministrators = new Set(['federated', 'federated_claim', 'audit_trail']);

function endpointsOf(openApi: { paths: Record<string, Record<string, unknown>> }): Endpoint[] {
  const endpoints: Endpoint[] = [];
  // The token endpoints, outside /api/v1, have their own cells below.
  for (const [path, operations] of Object.entries(openApi.paths).filter(([path]) => path.startsWith('/api/v1'))) {
    const segments = path.split('/');
    const relationship = segments.at(-2) === 'relationships';
    const last = relationship ? (segments.at(-3) ?? '') : (segments.at(-1) ?? '');
    const type = last.startsWith('{') ? typeOfParameter(last) : typeOfSegment(last, segments.at(-2));
    for (const method of Object.keys(operations).filter((m) => m !== 'parameters')) {
      let success = { get: 200, post: type === 'operations' ? 200 : 201, patch: 204, delete: 204 }[method] ?? 0;
      // Only a workspace's VCS link and a reference's workspace can be relinked, and a notification
      // configuration's templates replaced; a record never moves to another parent. An action's
      // relationship here is one Stratum does not model on it, which takes null.
      if (relationship && method === 'patch' && !['workspace', 'reference', 'notification_configuration', 'action'].includes(type))
        success = 403;
      // Adding to or removing from a relationship is refused to everyone who may write the record.
      if (relationship && (method === 'post' || method === 'delete')) success = 403;
      endpoints.push({ method: method.toUpperCase(), path, relationship, type, success });
    }
  }
  return endpoints;
}

/**
 * The operation groups of the JSON:API endpoints. Each caller gets a test per group, so a failure in
 * one group shows without hiding the others.
 */
const endpointGroups = ['read', 'create', 'update', 'delete', 'relationship'] as const;
type EndpointGroup = (typeof endpointGroups)[number];

const groupOfMethod: Partial<Record<string, EndpointGroup>> = { GET: 'read', POST: 'create', PATCH: 'update', DELETE: 'delete' };
const groupOf = (endpoint: Endpoint): EndpointGroup | undefined =>
  endpoint.relationship ? 'relationship' : groupOfMethod[endpoint.method];

const workspacePaths = ['/api/v1/organization/{organizationId}/workspace/{workspaceId}', '/api/v1/workspace/{workspaceId}'];
const projectPath = '/api/v1/organization/{organizationId}/project/{projectId}';

/**
 * What a caller with a grant gets: the organization record and its templates read-only; the granted workspace (for a
 * project grant, the workspace in the project, and the project) and what is in it, its variables
 * written as the grant's manageWorkspace allows; grants written by teams only; the lists of the
 * organization, holding what it may see; and 404 for everything else, the records the workspace
 * links among them. A workspace tag belongs to a tag of the organization, which a grant does not
 * open: none is seen, and a new one names a tag the caller cannot see (422).
 */
function grantedStatus(endpoint: Endpoint, caller: CallerKind): number {
  const write = endpoint.method !== 'GET';
  const projectGrant = caller === 'granted on its project';
  const within = workspacePaths.find((path) => endpoint.path.startsWith(path));
  if (endpoint.type === 'operations') return 403;
  const organizationRecord = ['/api/v1/organization', '/api/v1/organization/{organizationId}'].includes(endpoint.path);
  if (organizationRecord || endpoint.path.startsWith('/api/v1/organization/{organizationId}/relationships'))
    return write ? 403 : endpoint.success;
  // The fixture's notification configuration is the workspace's own: its grants reach it, its project's do not.
  const configuration =
    /^\/api\/v1\/(?:organization\/\{organizationId\}\/notificationConfiguration|notification_configuration)\/\{notification_configurationId\}/.exec(
      endpoint.path,
    );
  if (configuration !== null) {
    if (projectGrant) return 404;
    // The workspace it links, reached through it: a grant never deletes a workspace.
    return /^\/workspace\/\{\w+\}$/.test(endpoint.path.slice(configuration[0].length)) && endpoint.method === 'DELETE'
      ? 403
      : endpoint.success;
  }
  if (within !== undefined) {
    const rest = endpoint.path.slice(within.length);
    if (rest === '/notificationConfiguration' && write && projectGrant) return 403;
    const linked = /^\/(vcs|ssh|agent|project)\/\{\w+\}$/.exec(rest);
    if (linked !== null) return linked[1] === 'project' && projectGrant ? (write ? 403 : 200) : 404;
    if (rest.startsWith('/workspaceTag')) return rest !== '/workspaceTag' ? 404 : write ? 422 : endpoint.success;
    if (!write) return endpoint.success;
    if (endpoint.success === 403 || endpoint.type === 'access') return 403;
    if (endpoint.type === 'workspace') return endpoint.method === 'DELETE' ? 403 : endpoint.success;
    return endpoint.success;
  }
  if (endpoint.path.startsWith(projectPath)) return projectGrant ? (write ? 403 : endpoint.success) : 404;
  // The jobs of the granted workspace (in the project, for a project grant): the grants' admin role
  // gives planJob and approveJob, so they start, read and cancel them; only administrators delete
  // one; the workspace reached through a job is the granted workspace, which a grant never deletes.
  // Templates: any grant holder of the organization reads them (Run now picks one), and never writes them.
  if (endpoint.path.startsWith('/api/v1/organization/{organizationId}/template/')) return write ? 403 : endpoint.success;
  if (endpoint.path.startsWith(jobPath)) return write && endpoint.method === 'DELETE' && !endpoint.relationship ? 403 : endpoint.success;
  if (/^\/api\/v1\/organization\/\{organizationId\}\/\w+$/.test(endpoint.path)) return write ? 403 : endpoint.success;
  return 404;
}

function expectedStatus(endpoint: Endpoint, caller: CallerKind): number {
  if ((refusedCallers as readonly string[]).includes(caller)) return 401;
  const organizationList = endpoint.path === '/api/v1/organization';
  const write = endpoint.method !== 'GET';
  if (caller === 'administrator') return endpoint.success;
  // Records of no organization: neither a membership nor a grant counts.
  if (readByAdministrators.has(endpoint.type)) {
    // Only their list and the create beside it answer without a record to find: empty, and refused.
    if (endpoint.path === `/api/v1/${endpoint.type}`) return write ? 403 : 200;
    return 404;
  }
  if (readByEveryone.has(endpoint.type)) return write ? 403 : endpoint.success;
  if (caller === 'granted on the workspace' || caller === 'granted on its project') return grantedStatus(endpoint, caller);
  if (organizationList) return write ? 403 : 200;
  if (caller === 'non-member') return 404;
  if (!write) return endpoint.success;
  if (endpoint.success === 403) return 403;
  if (endpoint.path === jobRecordPath) {
    // The member without planJob holds approveJob, which cancels a job too.
    if (endpoint.method === 'PATCH') return endpoint.success;
    if (endpoint.method === 'DELETE') return 403;
  }
  return caller === 'member with the flag' && capabilityOf[endpoint.type] !== undefined ? endpoint.success : 403;
}

describeEachStore('authorization matrix', (context) => {
  let foreignIds: string[];
  let shared: Fixture;
  /** The organization the token endpoints are called about. */
  let tokenTarget: Fixture;
  let endpoints: Endpoint[];
  let allFlags: string[];
  const strangerSigner = new TokenSigner(randomBytes(32).toString('base64url'), adminGroup);
  // The repository of the fixtures' modules, on loopback: publishing a module reads its tags.
  let git: GitServer | undefined;
  let moduleSource = '';

  /** An organization with one record of every type, and the tokens of every kind of caller. */
  async function fixture(capability: Capability | undefined): Promise<Fixture> {
    const organization = await createOrganization(context.server);
    const workspace = await createWorkspace(context.server, organization);
    const spareWorkspace = await createWorkspace(context.server, organization);
    const vcs = await createVcs(context.server, organization);
    const linked = await context.server.request('PATCH', `/api/v1/organization/${organization}/workspace/${workspace}/relationships/vcs`, {
      body: { data: { type: 'vcs', id: vcs } },
    });
    assert.equal(linked.status, 204, linked.text);
    const collection = await createCollection(context.server, organization);
    // The records the web UI's pages load, and the workspace's links to them.
    const records = await uiRecords(organization, workspace, vcs);
    const withGroup = `with-${randomUUID()}`;
    const withoutGroup = `without-${randomUUID()}`;
    const flags = (held: (flag: string) => boolean) => Object.fromEntries(allFlags.map((flag) => [flag, held(flag)]));
    // Without a capability to withhold (administrator-only types) the members hold every flag and must still be refused.
    const withTeam = await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', {
      name: withGroup,
      ...flags((f) => capability === undefined || f === capability),
    });
    await createRecord(context.server, `/api/v1/organization/${organization}/team`, 'team', {
      name: withoutGroup,
      ...flags((f) => capability === undefined || f !== capability),
    });
    const ids: Record<string, string> = {
      organization,
      workspace,
      vcs,
      collection,
      template: await createTemplate(context.server, organization),
      variable: await createRecord(context.server, `/api/v1/workspace/${workspace}/variable`, 'variable', {
        key: 'SECRET',
        value: randomUUID(),
        category: 'ENV',
        sensitive: true,
      }),
      item: await createRecord(context.server, `/api/v1/organization/${organization}/collection/${collection}/item`, 'item', {
        key: 'k',
        value: 'v',
        category: 'TERRAFORM',
      }),
      reference: await createRecord(
        context.server,
        `/api/v1/organization/${organization}/collection/${collection}/reference`,
        'reference',
        {},
        {
          relationships: { workspace: { data: { type: 'workspace', id: workspace } } },
        },
      ),
      team: withTeam,
      ...records.ids,
      schedule: await createRecord(context.server, `/api/v1/organization/${organization}/workspace/${workspace}/schedule`, 'schedule', {
        cron: '0 0 12 * * ?',
      }),
      notification_configuration: await createRecord(
        context.server,
        `/api/v1/organization/${organization}/workspace/${workspace}/notificationConfiguration`,
        'notification_configuration',
        // Refused before any connection: a private address no setting lists.
        { name: 'alerts', channelType: 'WEBHOOK', destinationUrl: 'http://10.0.0.1/hook' },
      ),
      ...(await globalRecords()),
    };
    // A workspace's webhook, and an event of it: ids their client chooses.
    ids.webhook = await createRecord(context.server, `/api/v1/workspace/${workspace}/webhook`, 'webhook', {}, { id: randomUUID() });
    ids.webhook_event = await createRecord(
      context.server,
      `/api/v1/workspace/${workspace}/webhook/${ids.webhook}/events`,
      'webhook_event',
      { event: 'PUSH', branch: 'main', path: 'modules/.*' },
      { id: randomUUID() },
    );
    // A job of the workspace, pending, with the steps of its template's flow.
    const flow = await createTemplate(context.server, organization, {
      tcl: Buffer.from('flow:\n  - type: terraformPlan\n    step: 100\n').toString('base64'),
    });
    ids.job = await createRecord(
      context.server,
      `/api/v1/organization/${organization}/job`,
      'job',
      { templateReference: flow },
      { relationships: { workspace: { data: { type: 'workspace', id: workspace } } } },
    );
    const steps = await context.server.get(`/api/v1/organization/${organization}/job/${ids.job}/step`);
    ids.step = String((steps.body.data as { id: string }[])[0]?.id);
    // A state version, written as Terraform writes one: the state backend makes its history record.
    ids.history = await writeFirstState(context.server, organization, workspace);
    // The newest change of the organization, read in its trail and in the instance-wide one.
    const trail = await context.server.get(`/api/v1/organization/${organization}/auditEvent?page[size]=1`);
    ids.audit_event = String((trail.body.data as { id: string }[])[0]?.id);
    ids.audit_trail = ids.audit_event;
    // Grants to groups no team of the organization names.
    const workspaceGrantee = `granted-${randomUUID()}`;
    const projectGrantee = `granted-${randomUUID()}`;
    ids.notification_trigger = await createRecord(
      context.server,
      `/api/v1/notification_configuration/${ids.notification_configuration ?? ''}/triggers`,
      'notification_trigger',
      { jobStatus: 'failed' },
    );
    ids.access = await createRecord(context.server, `/api/v1/workspace/${workspace}/access`, 'access', {
      name: workspaceGrantee,
      role: 'admin',
    });
    ids.project_access = await createRecord(
      context.server,
      `/api/v1/organization/${organization}/project/${records.ids.project ?? ''}/projectAccess`,
      'project_access',
      { name: projectGrantee, role: 'admin' },
    );
    const memberSubject = `member-${randomUUID()}@example.com`;
    const teamToken = await context.server.post('/access-token/v1/teams', { description: 'revoked', days: 1, group: withGroup });
    assert.equal((await context.server.delete(`/access-token/v1/teams/${String(teamToken.body.id)}`)).status, 202);
    const valid = await context.server.token({ groups: [withGroup] });
    const [, payload] = valid.split('.');
    return {
      ids,
      spareWorkspace,
      spareTag: records.spareTag,
      withGroup,
      memberSubject,
      tokens: {
        'no token': null,
        'malformed token': 'not-a-token',
        'token signed by another key': (await strangerSigner.sign({ subject: 'intruder', groups: [adminGroup], ttlSeconds: 3600 })).token,
        'expired token': await context.server.token({ groups: [adminGroup], ttlSeconds: -60 }),
        'revoked team token': String(teamToken.body.token),
        'alg none token': `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload ?? ''}.`,
        'non-member': await context.server.token({ groups: [`outsider-${randomUUID()}`] }),
        'member without the flag': await context.server.token({ groups: [withoutGroup] }),
        'member with the flag': await context.server.token({ subject: memberSubject, groups: [withGroup] }),
        'granted on the workspace': await context.server.token({ groups: [workspaceGrantee] }),
        'granted on its project': await context.server.token({ groups: [projectGrantee] }),
        administrator: context.server.adminToken,
      },
    };
  }

  /** An action, a federated credential and its claim: records of no organization. */
  async function globalRecords(): Promise<Record<string, string>> {
    const action = `action-${randomUUID()}`;
    const created = await context.server.post('/api/v1/action', {
      data: {
        type: 'action',
        id: action,
        attributes: { name: 'a', label: 'a', category: 'c', type: 'Workspace/Action', action: 'e30=', version: '1.0.0' },
      },
    });
    assert.equal(created.status, 201, created.text);
    const federated = await createRecord(context.server, '/api/v1/federated', 'federated', {
      name: `f-${randomUUID()}`,
      issuerUrl: 'https://issuer.example',
    });
    const claim = await createRecord(context.server, `/api/v1/federated/${federated}/claims`, 'federated_claim', {
      claimKey: 'k',
      claimValue: 'v',
    });
    return { action, federated, federated_claim: claim };
  }

  /** A project, tags (one on the workspace), a global variable, an SSH key and an agent pool, the workspace linking them. */
  async function uiRecords(
    organization: string,
    workspace: string,
    vcs: string,
  ): Promise<{ ids: Record<string, string>; spareTag: string }> {
    const under = (type: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      createRecord(context.server, `/api/v1/organization/${organization}/${type}`, type, attributes, extra);
    const ssh = await under('ssh', { name: 'key', sshType: 'rsa', privateKey: randomUUID() });
    const ids: Record<string, string> = {
      project: await under('project', { name: `p-${randomUUID()}` }),
      tag: await under('tag', { name: `t-${randomUUID()}` }),
      globalvar: await under('globalvar', { key: 'SECRET', value: randomUUID(), category: 'ENV', sensitive: true }),
      ssh,
      agent: await under('agent', { name: 'pool', url: 'http://agent.example' }),
      // Linking the organization's VCS connection and SSH key, so `.../module/{id}/vcs/{vcsId}` and
      // `.../ssh/{sshId}` name linked records (the repository, served over HTTP, needs neither).
      module: await under(
        'module',
        { name: 'network', provider: 'aws', source: moduleSource },
        { relationships: { vcs: { data: { type: 'vcs', id: vcs } }, ssh: { data: { type: 'ssh', id: ssh } } } },
      ),
      provider: await under('provider', { name: 'random' }),
    };
    const below = (path: string, type: string, attributes: Record<string, unknown>) =>
      createRecord(context.server, `/api/v1/organization/${organization}/${path}`, type, attributes);
    ids.module_version = await below(`module/${ids.module}/version`, 'module_version', { version: '0.0.1' });
    ids.version = await below(`provider/${ids.provider}/version`, 'version', { versionNumber: '1.0.0' });
    ids.implementation = await below(`provider/${ids.provider}/version/${ids.version}/implementation`, 'implementation', providerBuild);
    ids.workspacetag = await createRecord(
      context.server,
      `/api/v1/organization/${organization}/workspace/${workspace}/workspaceTag`,
      'workspacetag',
      { tagId: ids.tag },
    );
    for (const type of ['project', 'ssh', 'agent']) {
      const linked = await context.server.request(
        'PATCH',
        `/api/v1/organization/${organization}/workspace/${workspace}/relationships/${type}`,
        {
          body: { data: { type, id: ids[type] } },
        },
      );
      assert.equal(linked.status, 204, linked.text);
    }
    return { ids, spareTag: await under('tag', { name: `t-${randomUUID()}` }) };
  }

  function bodyFor(endpoint: Endpoint, target: Fixture): unknown {
    const id = target.ids[endpoint.type];
    if (endpoint.path.endsWith('/relationships/{relationship}')) {
      if (endpoint.type === 'workspace') return { data: null };
      if (endpoint.type === 'reference') return { data: { type: 'workspace', id: target.ids.workspace } };
      // The web UI's save of a configuration's templates: the whole list, here none (every template).
      if (endpoint.type === 'notification_configuration') return { data: [] };
      return { data: null };
    }
    if (endpoint.method === 'PATCH') {
      const changed: Record<string, Record<string, unknown>> = {
        team: { manageState: true },
        tag: { name: `renamed-${randomUUID()}` },
        workspacetag: { tagId: target.ids.tag ?? '' },
        federated: { audience: 'changed' },
        federated_claim: { claimValue: 'changed' },
        access: { role: 'read' },
        project_access: { role: 'read' },
        webhook: { migratedV2: true },
        webhook_event: { branch: 'develop' },
        notification_trigger: { jobStatus: 'running' },
        module_version: { version: '0.0.2' },
        version: { protocols: '6.0' },
        implementation: { os: 'darwin' },
        job: { status: 'cancelled' },
      };
      return { data: { type: endpoint.type, id, attributes: changed[endpoint.type] ?? { description: 'changed' } } };
    }
    const unique = randomUUID();
    const created: Record<string, Record<string, unknown>> = {
      organization: { name: `o-${unique}` },
      template: { name: `t-${unique}`, tcl: Buffer.from('flow: []\n').toString('base64') },
      collection: { name: `c-${unique}` },
      item: { key: `k${unique.slice(0, 8)}`, value: 'v', category: 'TERRAFORM' },
      reference: {},
      workspace: { name: `w-${unique}` },
      variable: { key: `V_${unique.slice(0, 8)}`, value: 'v', category: 'ENV' },
      vcs: { name: `v-${unique}`, vcsType: 'GITHUB' },
      team: { name: `team-${unique}` },
      project: { name: `p-${unique}` },
      tag: { name: `t-${unique}` },
      workspacetag: { tagId: target.spareTag },
      globalvar: { key: `G_${unique.slice(0, 8)}`, value: 'v', category: 'ENV' },
      ssh: { name: `s-${unique}`, sshType: 'ed25519', privateKey: 'key' },
      agent: { name: `a-${unique}`, url: 'http://agent.example' },
      schedule: { cron: '0 0 12 ? * MON-FRI' },
      action: { name: 'a', label: 'a', category: 'c', type: 'Workspace/Action', action: 'e30=', version: '1.0.0' },
      federated: { name: `f-${unique}`, issuerUrl: 'https://issuer.example' },
      federated_claim: { claimKey: 'k', claimValue: 'v' },
      access: { name: `g-${unique}`, role: 'plan' },
      project_access: { name: `g-${unique}`, role: 'plan' },
      webhook: { migratedV2: false },
      webhook_event: { event: 'PUSH', branch: 'main', path: 'modules/.*' },
      notification_configuration: { name: `n-${unique}`, channelType: 'SLACK', destinationUrl: 'https://hooks.slack.com/services/x' },
      notification_trigger: { jobStatus: 'completed' },
      module: { name: `m${unique.slice(0, 8)}`, provider: 'aws', source: moduleSource },
      module_version: { version: '9.9.9' },
      provider: { name: `p${unique.slice(0, 8)}` },
      version: { versionNumber: '9.9.9' },
      implementation: providerBuild,
      job: { templateReference: target.ids.template ?? '' },
    };
    const relationships =
      endpoint.type === 'reference'
        ? { relationships: { workspace: { data: { type: 'workspace', id: target.spareWorkspace } } } }
        : endpoint.type === 'job'
          ? { relationships: { workspace: { data: { type: 'workspace', id: target.ids.workspace ?? '' } } } }
          : {};
    // Actions are named by their authors.
    const named =
      endpoint.type === 'action'
        ? { id: `action-${unique}` }
        : endpoint.type === 'webhook' || endpoint.type === 'webhook_event'
          ? { id: unique }
          : {};
    return { data: { type: endpoint.type, ...named, attributes: created[endpoint.type], ...relationships } };
  }

  /** The registry protocol's operations, about the fixture's module and provider, by the organization's name. */
  function registryCells(organization: string | undefined) {
    const name = async () => String((await context.server.get(`/api/v1/organization/${organization ?? ''}`)).body.data.attributes.name);
    const cell = (operation: string, allowed: number, path: (namespace: string) => string) => ({
      name: operation,
      operation: `GET ${operation}`,
      allowed,
      send: async (token: string | null) => context.server.get(path(await name()), { token }),
    });
    return [
      cell('/terraform/modules/v1/{namespace}/{name}/{provider}/versions', 200, (n) => `/terraform/modules/v1/${n}/network/aws/versions`),
      cell(
        '/terraform/modules/v1/{namespace}/{name}/{provider}/{version}/download',
        204,
        (n) => `/terraform/modules/v1/${n}/network/aws/1.0.0/download`,
      ),
      cell(
        '/terraform/readme/v1/{namespace}/{name}/{provider}/{version}/download',
        200,
        (n) => `/terraform/readme/v1/${n}/network/aws/1.0.0/download`,
      ),
      cell('/terraform/providers/v1/{namespace}/{type}/versions', 200, (n) => `/terraform/providers/v1/${n}/random/versions`),
      cell(
        '/terraform/providers/v1/{namespace}/{type}/{version}/download/{os}/{arch}',
        200,
        (n) => `/terraform/providers/v1/${n}/random/1.0.0/download/linux/amd64`,
      ),
    ];
  }

  function pathFor(endpoint: Endpoint, target: Fixture): string {
    const relationship =
      endpoint.type === 'organization'
        ? 'workspace'
        : endpoint.type === 'workspace'
          ? 'vcs'
          : endpoint.type === 'reference'
            ? 'workspace'
            : endpoint.type === 'notification_configuration'
              ? 'templates'
              : undefined;
    return endpoint.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
      if (name === 'relationship') return relationship ?? parentOf(endpoint.type);
      const value = target.ids[typeOfParameter(`{${name}}`)];
      if (value === undefined) throw new Error(`no fixture for ${name} in ${endpoint.path}`);
      return value;
    });
  }

  // The relationship each type's relationship endpoints are called with: its parent, or one it has.
  const parents: Partial<Record<string, string>> = {
    item: 'collection',
    variable: 'workspace',
    workspacetag: 'workspace',
    schedule: 'workspace',
    federated_claim: 'federated',
    federated: 'claims',
    // An action links nothing: a name clients use for what Stratum does not model on it reads as empty.
    action: 'webhook',
    audit_trail: 'webhook',
    access: 'workspace',
    project_access: 'project',
    webhook: 'workspace',
    webhook_event: 'webhook',
    notification_trigger: 'configuration',
    module_version: 'module',
    version: 'provider',
    implementation: 'version',
    step: 'job',
    history: 'workspace',
  };
  const parentOf = (type: string) => parents[type] ?? 'organization';

  async function call(endpoint: Endpoint, target: Fixture, caller: CallerKind): Promise<Response> {
    if (endpoint.type === 'operations') {
      const add = {
        op: 'add',
        href: `/organization/${target.ids.organization ?? ''}/workspace`,
        data: { type: 'workspace', attributes: { name: `w-${randomUUID()}` } },
      };
      const atomic = 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"';
      return context.server.request('POST', endpoint.path, {
        token: target.tokens[caller],
        body: { 'atomic:operations': [add] },
        headers: { 'content-type': atomic, accept: atomic },
      });
    }
    const body = endpoint.method === 'POST' || endpoint.method === 'PATCH' ? bodyFor(endpoint, target) : undefined;
    // A workspace holds one webhook at most: the fixture's goes before a new one is created.
    if (endpoint.type === 'webhook' && endpoint.method === 'POST' && !endpoint.relationship)
      await context.server.delete(`/api/v1/workspace/${target.ids.workspace ?? ''}/webhook/${target.ids.webhook ?? ''}`);
    return context.server.request(endpoint.method, pathFor(endpoint, target), {
      token: target.tokens[caller],
      ...(body === undefined ? {} : { body }),
    });
  }

  function check(response: Response, expected: number, caller: CallerKind, cell: string): void {
    assert.equal(response.status, expected, `${cell}: ${response.text}`);
    if (expected === 401) assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/, cell);
    // Administrators see every organization; nobody else may see a record of one it is not a member of.
    if (caller === 'administrator') return;
    for (const id of foreignIds) assert.ok(!response.text.includes(id), `${cell} shows another organization's record ${id}`);
  }

  /**
   * A refused write leaves its target as it was, so the callers a write endpoint refuses share one
   * organization for it, made when first needed: one per endpoint rather than one per cell.
   */
  const refusedTargets = new Map<Endpoint, Promise<Fixture>>();
  function refusedTarget(endpoint: Endpoint): Promise<Fixture> {
    let target = refusedTargets.get(endpoint);
    if (target === undefined) {
      // Writes need teams that grant or withhold the one flag the endpoint's type needs.
      target = fixture(capabilityOf[endpoint.type]);
      refusedTargets.set(endpoint, target);
    }
    return target;
  }

  /**
   * The endpoints outside /api/v1 (the token endpoints decisions.md adds, and their administration),
   * each with the operation of the API description it calls and what each caller gets from it
   * against `target`.
   */
  function tokenCells(target: Fixture) {
    const { organization, workspace } = target.ids;
    // A caller with a grant alone is no member of the token's team, but sees the organization.
    const expected =
      (allowed: number, nonMember: number, memberWithout = nonMember, granted = nonMember) =>
      (caller: CallerKind) =>
        (refusedCallers as readonly string[]).includes(caller)
          ? 401
          : caller === 'non-member'
            ? nonMember
            : caller === 'member without the flag'
              ? memberWithout
              : caller === 'granted on the workspace' || caller === 'granted on its project'
                ? granted
                : allowed;
    const administratorOnly = (allowed: number) => (caller: CallerKind) =>
      (refusedCallers as readonly string[]).includes(caller) ? 401 : caller === 'administrator' ? allowed : 403;
    const liveTeamToken = async () =>
      String((await context.server.post('/access-token/v1/teams', { description: 'x', days: 1, group: target.withGroup })).body.id);
    const memberPersonalToken = async () =>
      String(
        (await context.server.post('/pat/v1', { description: 'x', days: 1 }, { token: target.tokens['member with the flag'] })).body.id,
      );
    const cells: {
      name: string;
      operation: string;
      send: (token: string | null) => Promise<Response>;
      status: (caller: CallerKind) => number;
    }[] = [
      {
        name: 'POST team token',
        operation: 'POST /access-token/v1/teams',
        send: (token) => context.server.post('/access-token/v1/teams', { description: 'd', days: 1, group: target.withGroup }, { token }),
        status: expected(201, 403),
      },
      {
        name: 'GET team tokens',
        operation: 'GET /access-token/v1/teams',
        send: (token) => context.server.get('/access-token/v1/teams', { token }),
        status: expected(200, 200),
      },
      {
        name: 'DELETE team token',
        operation: 'DELETE /access-token/v1/teams/{tokenId}',
        send: async (token) => context.server.delete(`/access-token/v1/teams/${await liveTeamToken()}`, { token }),
        status: expected(202, 404),
      },
      {
        name: 'GET current-teams',
        operation: 'GET /access-token/v1/teams/current-teams',
        send: (token) => context.server.get('/access-token/v1/teams/current-teams', { token }),
        status: expected(200, 200),
      },
      {
        name: 'GET permissions',
        operation: 'GET /access-token/v1/teams/permissions/organization/{organizationId}',
        send: (token) => context.server.get(`/access-token/v1/teams/permissions/organization/${organization}`, { token }),
        status: expected(200, 404, 200, 200),
      },
      {
        name: 'GET workspace permissions',
        operation: 'GET /access-token/v1/teams/permissions/organization/{organizationId}/workspace/{workspaceId}',
        send: (token) =>
          context.server.get(`/access-token/v1/teams/permissions/organization/${organization}/workspace/${workspace}`, { token }),
        status: expected(200, 404, 200, 200),
      },
      {
        name: 'POST personal token',
        operation: 'POST /pat/v1',
        send: (token) => context.server.post('/pat/v1', { description: 'd', days: 1 }, { token }),
        status: expected(201, 201),
      },
      {
        name: 'GET personal tokens',
        operation: 'GET /pat/v1',
        send: (token) => context.server.get('/pat/v1', { token }),
        status: expected(200, 200),
      },
      {
        name: 'DELETE personal token',
        operation: 'DELETE /pat/v1/{tokenId}',
        send: async (token) => context.server.delete(`/pat/v1/${await memberPersonalToken()}`, { token }),
        status: expected(202, 404),
      },
      // Public, as in Terrakube: the version lists answer whatever token is sent, or none.
      ...['terraform', 'tofu'].map((tool) => ({
        name: `GET the ${tool} versions`,
        operation: `GET /${tool}/index.json`,
        send: (token: string | null) => context.server.get(`/${tool}/index.json`, { token }),
        status: () => 200,
      })),
      ...notificationCells(target),
      {
        // No token: a link /download signed for an administrator serves whoever holds it, whatever token comes with it.
        name: "GET a module version's zip",
        operation: 'GET /terraform/modules/v1/download/{namespace}/{name}/{provider}/{version}/module.zip',
        send: async (token: string | null) => {
          const name = String((await context.server.get(`/api/v1/organization/${organization ?? ''}`)).body.data.attributes.name);
          const download = await context.server.get(`/terraform/modules/v1/${name}/network/aws/1.0.0/download`);
          const link = new URL(download.headers.get('x-terraform-get') ?? '');
          return context.server.get(`${link.pathname}${link.search}`, { token });
        },
        status: () => 200,
      },
      // The registry protocols: the records of the organization named, as JSON:API reads them.
      ...registryCells(organization).map((cell) => ({
        ...cell,
        status: expected(cell.allowed, 404, cell.allowed, 404),
      })),
      {
        name: 'GET /.well-known/terraform.json',
        operation: 'GET /.well-known/terraform.json',
        send: (token: string | null) => context.server.get('/.well-known/terraform.json', { token }),
        status: () => 200,
      },
      {
        name: 'GET every token',
        operation: 'GET /admin/v1/tokens',
        send: (token) => context.server.get('/admin/v1/tokens?includeInactive=true', { token }),
        status: administratorOnly(200),
      },
      {
        name: 'DELETE any token',
        operation: 'DELETE /admin/v1/tokens/{tokenId}',
        send: async (token) => context.server.delete(`/admin/v1/tokens/${await memberPersonalToken()}`, { token }),
        status: administratorOnly(202),
      },
    ];
    return cells;
  }

  /**
   * The notification endpoints against the target's workspace configuration, whose destination is
   * refused (502 for whoever may send): a workspace grant reaches it, a project grant only the
   * workspace. The target's teams hold every flag, the one without it too.
   */
  function notificationCells(target: Fixture) {
    const { organization, workspace, notification_configuration: configuration } = target.ids;
    const status = (allowed: number, options: { projectGrant: number; workspaceGrant?: number }) => (caller: CallerKind) => {
      if ((refusedCallers as readonly string[]).includes(caller)) return 401;
      if (caller === 'non-member') return 404;
      if (caller === 'granted on its project') return options.projectGrant;
      if (caller === 'granted on the workspace') return options.workspaceGrant ?? allowed;
      return allowed;
    };
    const failedDelivery = async () => {
      await context.server.post(`/notification/v1/configuration/${configuration ?? ''}/test`, {});
      const deliveries = (await context.server.get(`/notification/v1/workspace/${workspace ?? ''}/deliveries`)).body as { id: string }[];
      return deliveries[0]?.id ?? '';
    };
    return [
      {
        name: 'POST a configuration test',
        operation: 'POST /notification/v1/configuration/{notification_configurationId}/test',
        send: (token: string | null) => context.server.post(`/notification/v1/configuration/${configuration ?? ''}/test`, {}, { token }),
        status: status(502, { projectGrant: 404 }),
      },
      {
        name: 'POST a destination test',
        operation: 'POST /notification/v1/organization/{organizationId}/configuration/test',
        send: (token: string | null) =>
          context.server.post(
            `/notification/v1/organization/${organization ?? ''}/configuration/test`,
            { channelType: 'WEBHOOK', destinationUrl: 'http://10.0.0.1/hook' },
            { token },
          ),
        status: status(502, { projectGrant: 403, workspaceGrant: 403 }),
      },
      {
        name: "GET a workspace's deliveries",
        operation: 'GET /notification/v1/workspace/{workspaceId}/deliveries',
        send: (token: string | null) => context.server.get(`/notification/v1/workspace/${workspace ?? ''}/deliveries`, { token }),
        status: status(200, { projectGrant: 200 }),
      },
      {
        name: "GET a configuration's deliveries",
        operation: 'GET /notification/v1/configuration/{notification_configurationId}/deliveries',
        send: (token: string | null) => context.server.get(`/notification/v1/configuration/${configuration ?? ''}/deliveries`, { token }),
        status: status(200, { projectGrant: 404 }),
      },
      {
        name: 'POST a retry',
        operation: 'POST /notification/v1/workspace/{workspaceId}/deliveries/{deliveryId}/retry',
        send: async (token: string | null) =>
          context.server.post(`/notification/v1/workspace/${workspace ?? ''}/deliveries/${await failedDelivery()}/retry`, {}, { token }),
        status: status(200, { projectGrant: 404 }),
      },
    ];
  }
  after(async () => {
    await git?.stop();
  });

  before(async () => {
    git = await GitServer.start();
    moduleSource = git.repository('network', [
      { files: { 'README.md': '# Network\n', 'main.tf': 'variable "region" {}\n' }, tags: ['v1.0.0'] },
    ]);
    const description = (await context.server.get('/api/openapi.json', { token: null })).body;
    // A team's permission flags are its boolean attributes, as the API describes them.
    const teamAttributes = Object.entries(description.components.schemas.teamAttributes.properties as Record<string, { type?: unknown }>);
    allFlags = teamAttributes.filter(([, schema]) => schema.type === 'boolean').map(([name]) => name);
    assert.ok(allFlags.includes('manageWorkspace') && allFlags.includes('approveJob'), allFlags.join());
    const foreign = await fixture(undefined);
    // Every caller reads every action, whoever made it; nothing else of another organization's fixture may show.
    // A job's id is a small number, which any answer may hold in other places: its steps' UUIDs stand for it.
    foreignIds = Object.entries(foreign.ids).flatMap(([type, id]) => (readByEveryone.has(type) || type === 'job' ? [] : [id]));
    shared = await fixture(undefined);
    tokenTarget = await fixture(undefined);
    endpoints = endpointsOf(description);
    // An endpoint outside /api/v1 without a token cell would be in no test.
    const outside = Object.entries(description.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => !path.startsWith('/api/v1'))
      .flatMap(([path, operations]) => Object.keys(operations).flatMap((m) => (m === 'parameters' ? [] : [`${m.toUpperCase()} ${path}`])));
    assert.deepEqual(
      outside.sort(),
      tokenCells(tokenTarget)
        .map((cell) => cell.operation)
        .sort(),
    );
    assert.ok(endpoints.length > 100, `only ${endpoints.length} endpoints`);
    // An endpoint in no group would be in no test.
    assert.deepEqual(
      endpoints.filter((endpoint) => groupOf(endpoint) === undefined).map((endpoint) => `${endpoint.method} ${endpoint.path}`),
      [],
    );
  });

  for (const caller of callers) {
    describe(caller, () => {
      for (const group of endpointGroups) {
        it(`gets the status it is owed from every ${group} endpoint`, async () => {
          const inGroup = endpoints.filter((endpoint) => groupOf(endpoint) === group);
          assert.ok(inGroup.length > 0, `no ${group} endpoint`);
          for (const endpoint of inGroup) {
            const expected = expectedStatus(endpoint, caller);
            let target = shared;
            // A write that is allowed changes or deletes its target: it gets an organization of its own.
            if (endpoint.method !== 'GET')
              target = expected < 300 ? await fixture(capabilityOf[endpoint.type]) : await refusedTarget(endpoint);
            check(await call(endpoint, target, caller), expected, caller, `${caller} ${endpoint.method} ${endpoint.path}`);
          }
        });
      }

      it('gets the status it is owed from every token endpoint', async () => {
        for (const cell of tokenCells(tokenTarget)) {
          const response = await cell.send(tokenTarget.tokens[caller]);
          check(response, cell.status(caller), caller, `${caller} ${cell.name}`);
          if (response.status === 201) assert.equal(typeof decodeJwt(String(response.body.token)).jti, 'string');
        }
        if (caller === 'non-member') {
          // Lists show only what the caller may see: an outsider sees none of the group's tokens, though the group has some.
          const all = (await context.server.get('/access-token/v1/teams')).body as { group?: string }[];
          assert.ok(
            all.some((token) => token.group === tokenTarget.withGroup),
            'the group has no live token to hide',
          );
          assert.deepEqual((await context.server.get('/access-token/v1/teams', { token: tokenTarget.tokens['non-member'] })).body, []);
        }
      });
    });
  }
});
