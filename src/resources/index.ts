import type { RunRecords } from '../runs/index.js';
import { Registry } from '../model/index.js';
import { action } from './action.js';
import { access } from './access.js';
import { agent } from './agent.js';
import { auditEvent, auditTrail } from './audit-event.js';
import { collection } from './collection.js';
import { federated, federatedClaim } from './federated.js';
import { globalvar } from './globalvar.js';
import { history } from './history.js';
import { implementation } from './implementation.js';
import { item } from './item.js';
import { job } from './job.js';
import { moduleVersion } from './module-version.js';
import { terraformModule } from './module.js';
import { notificationConfiguration, notificationTrigger } from './notification.js';
import { organization } from './organization.js';
import { projectAccess } from './project-access.js';
import { providerVersion } from './provider-version.js';
import { provider } from './provider.js';
import { project } from './project.js';
import { reference } from './reference.js';
import { schedule } from './schedule.js';
import { ssh } from './ssh.js';
import { step } from './step.js';
import { tag } from './tag.js';
import { team } from './team.js';
import { template } from './template.js';
import { terrakubeConventions } from './terrakube-compat.js';
import { variable } from './variable.js';
import { webhook, webhookEvent } from './webhook.js';
import { vcs } from './vcs.js';
import { workspaceTag } from './workspace-tag.js';
import { workspace } from './workspace.js';

export { recordPolicies, tokenPolicies } from './policies.js';
export { permissionScopes, unmodeledRecords } from './terrakube-compat.js';
export { registryRecords } from './registry-protocol.js';
export { notificationRecords } from './notification.js';
export { stateRecords } from './history.js';
export { auditRecords } from './audit-event.js';
export { workspaceDefaults } from './workspace.js';

/** What the executor reads and changes as it runs jobs. */
export const runRecords: RunRecords = {
  job,
  step,
  workspace,
  template,
  variable,
  globalVariable: globalvar,
  reference,
  collection,
  item,
  schedule,
  vcs,
  ssh,
  agent,
};

/** The records whose paths a run's log pages name. */
export const runOutputRecords = { organization, job, step };

/** The records whose job events the live channel serves. */
export const liveChannelRecords = { workspace, organization };

/** Every resource the API serves, checked once at start. */
export const registry = new Registry(
  [
    organization,
    template,
    collection,
    item,
    reference,
    workspace,
    variable,
    vcs,
    team,
    project,
    tag,
    workspaceTag,
    globalvar,
    ssh,
    agent,
    schedule,
    action,
    federated,
    federatedClaim,
    access,
    projectAccess,
    terraformModule,
    moduleVersion,
    provider,
    providerVersion,
    implementation,
    webhook,
    webhookEvent,
    notificationConfiguration,
    notificationTrigger,
    job,
    step,
    history,
    auditEvent,
    auditTrail,
  ],
  terrakubeConventions,
);
