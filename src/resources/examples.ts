import type { AttributeValues } from '../model/index.js';
import { status } from '../runs/index.js';

/** The repository of the module example: publishing it reads its tags, so it must be one git can read. */
export const exampleModuleSource = 'https://git.example.com/acme/terraform-aws-network.git';

const changeExample: AttributeValues = {
  at: '2025-01-15T09:30:00.000Z',
  actorKind: 'user',
  actorSubject: 'admin@example.com',
  actorTokenKind: 'signed',
  actorTokenId: null,
  actorJobId: null,
  recordType: 'variable',
  recordId: '0194692e-6d2a-7c4e-9a6b-3f1c2d4e5f60',
  action: 'update',
  transport: 'jsonapi',
  requestId: 'req-1',
  clientAddress: '203.0.113.9',
  attributes: JSON.stringify({ value: { sensitive: true }, description: { before: null, after: 'rotated' } }),
};

/**
 * Example attributes of each resource, as a person would send them: the API description shows them
 * as example requests and answers. A resource without an entry gets examples made from its
 * declaration's types and defaults.
 */
export const resourceExamples: Record<string, AttributeValues> = {
  organization: { name: 'acme', description: 'Platform team', executionMode: 'remote' },
  template: {
    name: 'Nightly plan',
    version: '1.0.0',
    description: 'Runs every night',
    tcl: 'ZmxvdzoKICAtIHR5cGU6ICJ0ZXJyYWZvcm1QbGFuIgogICAgbmFtZTogIlBsYW4iCiAgICBzdGVwOiAxMDAK',
  },
  collection: { name: 'aws-defaults', description: 'Shared AWS settings', priority: 10 },
  item: { key: 'AWS_DEFAULT_REGION', value: 'eu-west-1', category: 'ENV', sensitive: false },
  reference: { description: 'network uses the AWS defaults' },
  workspace: {
    name: 'network-prod',
    source: 'https://github.com/acme/network.git',
    branch: 'main',
    folder: '/prod',
    iacType: 'terraform',
    terraformVersion: '1.9.5',
  },
  variable: { key: 'region', value: 'eu-west-1', category: 'TERRAFORM', sensitive: false, hcl: false },
  // Secrets are left out: an answer never shows them, and a person copying an example should not send one.
  vcs: {
    name: 'GitHub',
    vcsType: 'GITHUB',
    clientId: 'Iv1.8a61f9b3a7aba766',
    endpoint: 'https://github.com',
    apiUrl: 'https://api.github.com',
  },
  team: { name: 'platform-engineers', role: 'write' },
  audit_event: changeExample,
  audit_trail: { ...changeExample, organizationId: '0194692e-1b2c-7d3e-8f40-5a6b7c8d9e0f' },
  project: { name: 'networking', description: 'Network workspaces' },
  tag: { name: 'production' },
  globalvar: { key: 'TF_LOG', value: 'INFO', description: 'Log level of every run', category: 'ENV', sensitive: false },
  // An SSH key is nothing without its private key, which is required, and never read back.
  ssh: {
    name: 'modules',
    description: 'Clones private modules',
    sshType: 'ed25519',
    privateKey: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n',
  },
  agent: { name: 'eu-pool', description: 'Frankfurt executors', url: 'http://executor.eu.internal:8090' },
  schedule: { cron: '0 0 6 ? * MON-FRI *', description: 'Weekday mornings', enabled: true },
  action: {
    name: 'Runbook',
    label: 'Runbook',
    category: 'General',
    type: 'Workspace/Action',
    version: '1.0.0',
    action: 'KHsgY29udGV4dCB9KSA9PiA8QnV0dG9uIGhyZWY9Imh0dHBzOi8vd2lraS5leGFtcGxlLmNvbSI+UnVuYm9vazwvQnV0dG9uPg==',
    displayCriteria: '[{"filter": "true"}]',
    active: true,
  },
  federated: { name: 'github-actions', issuerUrl: 'https://token.actions.githubusercontent.com', audience: 'stratum' },
  federated_claim: { claimKey: 'repository', claimValue: 'acme/network' },
  webhook: { migratedV2: false },
  webhook_event: { event: 'PUSH', branch: 'main,release-.*', path: 'network/*', pathType: 'PATTERN', priority: 1 },
  notification_configuration: {
    name: 'Prod alerts',
    description: 'Pages on-call when a prod run fails',
    channelType: 'WEBHOOK',
    destinationUrl: 'https://hooks.example.com/stratum',
    signingSecret: 'a shared secret',
    active: true,
    messageStyle: 'DETAILED',
  },
  notification_trigger: { jobStatus: status.failed },
  module: {
    name: 'network',
    description: 'VPC, subnets and routes',
    provider: 'aws',
    source: exampleModuleSource,
    tagPrefix: null,
    folder: null,
  },
  provider: { name: 'random', description: 'Random values' },
  version: { versionNumber: '3.6.0', protocols: '5.0' },
  implementation: {
    os: 'linux',
    arch: 'amd64',
    filename: 'terraform-provider-random_3.6.0_linux_amd64.zip',
    downloadUrl: 'https://files.example.com/random/3.6.0/terraform-provider-random_3.6.0_linux_amd64.zip',
    shasumsUrl: 'https://files.example.com/random/3.6.0/terraform-provider-random_3.6.0_SHA256SUMS',
    shasumsSignatureUrl: 'https://files.example.com/random/3.6.0/terraform-provider-random_3.6.0_SHA256SUMS.sig',
    shasum: '5f9c7aa76b7c34d722fc9123208e26b22d60440cb47150dd04733b9b94f4541a',
    keyId: '34365D9472D7468F',
    asciiArmor: '-----BEGIN PGP PUBLIC KEY BLOCK-----\n...\n-----END PGP PUBLIC KEY BLOCK-----\n',
    trustSignature: '',
    source: 'HashiCorp',
    sourceUrl: 'https://www.hashicorp.com/security.html',
  },
};

/**
 * The example of the atomic operations endpoint, with the description's placeholder ids: a
 * workspace and its first variable, made in one request as the web UI does.
 */
export function atomicExample(ids: ReadonlyMap<string, string>): unknown {
  return {
    'atomic:operations': [
      {
        op: 'add',
        href: `/organization/${ids.get('organization') ?? ''}/workspace`,
        data: { type: 'workspace', lid: 'dns', attributes: { name: 'dns', iacType: 'tofu' } },
      },
      {
        op: 'add',
        data: {
          type: 'variable',
          attributes: { key: 'zone', value: 'acme.io', category: 'TERRAFORM' },
          relationships: { workspace: { data: { type: 'workspace', lid: 'dns' } } },
        },
      },
    ],
  };
}
