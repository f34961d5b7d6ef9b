import type { AttributeValues } from '../model/index.js';

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
  vcs: { name: 'GitHub', vcsType: 'GITHUB', clientId: 'Iv1.8a61f9b3a7aba766', clientSecret: 'cs-2f1c', endpoint: 'https://github.com' },
  team: { name: 'platform-engineers', role: 'write' },
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
};
