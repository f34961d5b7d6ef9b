import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, it } from 'node:test';
import { createOrganization, createRecord, describeEachStore, type TestServer } from './harness.ts';

/*
 * The seven GraphQL queries Terrakube's web UI sends (ui/src of terrakube-io/terrakube at c073ede0),
 * replayed byte for byte: the query text with its line breaks and indentation, as a JSON body
 * `{"query": ...}` with the headers axios sends. Each answer must hold exactly what the UI reads.
 */

/** modules/organizations/organizationService.ts listOrganizationsGraphQL */
const organizationList = () => `{
      organization {
        edges {
          node {
            id
            name
            description
            executionMode
            icon
            workspace {
              edges {
                node {
                  id
                  lastJobStatus
                }
              }
            }
          }
        }
      }
    }`;

/** modules/organizations/organizationService.ts getOrganizationNameGraphQL */
const organizationName = (orgId: string) => `{
      organization(ids: ["${orgId}"]) {
        edges {
          node {
            id
            name
          }
        }
      }
    }`;

/** modules/workspaces/workspaceService.ts listWorkspaces */
const workspaceList = (organizationId: string) => `{
          organization(ids: ["${organizationId}"]) {
            edges {
              node {
                id
                name
                workspace(sort: "name") {
                  edges {
                    node {
                      id
                      name
                      description
                      source
                      branch
                      terraformVersion
                      iacType
                      lastJobStatus
                      lastJobDate
                      locked
                      workspaceTag {
                        edges {
                          node {
                            id
                            tagId
                          }
                        }
                      }
                      project {
                        edges {
                          node {
                            id
                            name
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }`;

/** modules/organizations/organizationService.ts listOrganizationTags */
const organizationTags = (organizationId: string) => `{
      organization(ids: ["${organizationId}"]) {
        edges {
          node {
            tag {
              edges {
                node {
                  id
                  name
                }
              }
            }
          }
        }
      }
    }`;

/** modules/projects/projectService.ts listProjects */
const projects = (organizationId: string) => `{
      organization(ids: ["${organizationId}"]) {
        edges {
          node {
            project {
              edges {
                node {
                  id
                  name
                  description
                }
              }
            }
          }
        }
      }
    }`;

/** domain/Notifications/NotificationConfigurationList.tsx */
const notificationConfigurations = (orgId: string) => `{
        organization(ids: ["${orgId}"]) {
          edges { node {
            notificationConfiguration {
              edges { node {
                id
                name
                description
                channelType
                destinationUrl
                active
                workspace { edges { node { id } } }
              } }
            }
          } }
        }
      }`;

/** modules/workspaces/workspaceAccessService.ts listWorkspaceAccess */
const workspaceAccess = (workspaceId: string) => `{
      workspace(ids: ["${workspaceId}"]) {
        edges {
          node {
            access {
              edges {
                node {
                  id
                  name
                  role
                  manageWorkspace
                  manageState
                  planJob
                  approveJob
                }
              }
            }
          }
        }
      }
    }`;

/** modules/projects/projectService.ts listProjectAccess */
const projectAccess = (projectId: string) => `{
      project(ids: ["${projectId}"]) {
        edges {
          node {
            projectAccess {
              edges {
                node {
                  id
                  name
                  role
                  manageWorkspace
                  manageState
                  manageJob
                  planJob
                  approveJob
                }
              }
            }
          }
        }
      }
    }`;

/** sha256 of each query as the UI's source writes it, placeholders included: a changed byte fails the test. */
const sources: [string, string, string][] = [
  ['organizationList', organizationList(), 'f3f7d61318cd0f270a6fdc69aa053220c72e602226c90416c8ed38c12577caa7'],
  ['organizationName', organizationName('${orgId}'), 'ef83a4a18329e57ccff049033cd1a5425f389b86ac0d4e6dba2db7d5eb0bd2c8'],
  ['workspaceList', workspaceList('${organizationId}'), '9435dd3ea8dfa31cf4c45bbaf3e9ce899f79c75dd5be323f5abcffb7b55aa7ee'],
  ['organizationTags', organizationTags('${organizationId}'), 'f927bc0b85a7cbd781d45d665abe61883b850959d949ee349025ebd2c3104b18'],
  ['projects', projects('${organizationId}'), 'bc4e20068156157b73f64eeda93fb059e41dececa683778c7142eaa0a701b257'],
  [
    'notificationConfigurations',
    notificationConfigurations('${orgId}'),
    '73f411c4e3d6859aaa1a2097004133251e1c2f61a870e30391addf2d9aa39c6a',
  ],
  ['workspaceAccess', workspaceAccess('${workspaceId}'), 'db4ab311188de831f7bbc94e65951fe464cceb26a6dc1722638f8950d8a11b9f'],
  ['projectAccess', projectAccess('${projectId}'), 'c1c4fddd1253f49ac56c8f424abe086216078ce9df2d0677245908051f0da1c6'],
];

/** POSTs a query as the UI does: axios with a JSON body, its default Accept, and the caller's token. */
async function send(server: TestServer, query: string, token?: string) {
  const response = await server.request('POST', '/graphql/api/v1', {
    raw: JSON.stringify({ query }),
    headers: { 'content-type': 'application/json', accept: 'application/json, text/plain, */*' },
    ...(token === undefined ? {} : { token }),
  });
  assert.equal(response.status, 200, response.text);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  return response.body;
}

describeEachStore("the web UI's GraphQL queries", (context) => {
  let acme = '';
  let beta = '';
  const workspaces: Record<string, string> = {};
  let member = '';

  before(async () => {
    const { server } = context;
    acme = await createOrganization(server, { name: 'acme', description: 'Platform team', icon: 'cloud:#1f6feb' });
    beta = await createOrganization(server, { name: 'beta', executionMode: 'local' });
    // Created out of name order, so that sorting by name shows.
    for (const [name, attributes] of [
      ['network', { source: 'https://github.com/acme/network.git', branch: 'main', terraformVersion: '1.9.5', locked: true }],
      ['dns', { description: 'Zones', iacType: 'tofu', terraformVersion: '1.8.0' }],
      ['compute', {}],
    ] as const) {
      workspaces[name] = await createRecord(server, `/api/v1/organization/${acme}/workspace`, 'workspace', { name, ...attributes });
    }
    workspaces.edge = await createRecord(server, `/api/v1/organization/${beta}/workspace`, 'workspace', { name: 'edge' });
    await createRecord(server, `/api/v1/organization/${acme}/team`, 'team', { name: 'acme-readers', role: 'read' });
    member = await server.token({ groups: ['acme-readers'] });
  });

  it('replays the queries byte for byte as the UI source writes them', () => {
    for (const [name, text, digest] of sources) assert.equal(createHash('sha256').update(text).digest('hex'), digest, name);
  });

  it('1. the organization picker and switcher: every organization with its workspaces and their last job status', async () => {
    const ws = (id: string | undefined) => ({ node: { id, lastJobStatus: 'NeverExecuted' } });
    assert.deepEqual(await send(context.server, organizationList()), {
      data: {
        organization: {
          edges: [
            {
              node: {
                id: acme,
                name: 'acme',
                description: 'Platform team',
                executionMode: 'remote',
                icon: 'cloud:#1f6feb',
                workspace: { edges: [ws(workspaces.network), ws(workspaces.dns), ws(workspaces.compute)] },
              },
            },
            {
              node: {
                id: beta,
                name: 'beta',
                description: null,
                executionMode: 'local',
                icon: null,
                workspace: { edges: [ws(workspaces.edge)] },
              },
            },
          ],
        },
      },
    });
  });

  it("1. a member's picker lists only the organizations it belongs to", async () => {
    const body = await send(context.server, organizationList(), member);
    assert.deepEqual(
      body.data.organization.edges.map((edge: { node: { id: string } }) => edge.node.id),
      [acme],
    );
  });

  it('2. the sidebar\'s organization name, and an unknown id (the create page asks for ids: ["create"]) reads no edge', async () => {
    assert.deepEqual(await send(context.server, organizationName(acme)), {
      data: { organization: { edges: [{ node: { id: acme, name: 'acme' } }] } },
    });
    assert.deepEqual(await send(context.server, organizationName('create')), { data: { organization: { edges: [] } } });
    assert.deepEqual(await send(context.server, organizationName(beta), member), { data: { organization: { edges: [] } } });
  });

  it('3. the workspace list: sorted by name, with the fields the list renders, tags and project empty', async () => {
    const node = (id: string | undefined, fields: Record<string, unknown>) => ({
      node: {
        id,
        description: null,
        source: null,
        branch: 'main',
        terraformVersion: null,
        iacType: 'terraform',
        lastJobStatus: 'NeverExecuted',
        lastJobDate: null,
        locked: false,
        ...fields,
        workspaceTag: { edges: [] },
        project: { edges: [] },
      },
    });
    assert.deepEqual(await send(context.server, workspaceList(acme)), {
      data: {
        organization: {
          edges: [
            {
              node: {
                id: acme,
                name: 'acme',
                workspace: {
                  edges: [
                    node(workspaces.compute, { name: 'compute' }),
                    node(workspaces.dns, { name: 'dns', description: 'Zones', iacType: 'tofu', terraformVersion: '1.8.0' }),
                    node(workspaces.network, {
                      name: 'network',
                      source: 'https://github.com/acme/network.git',
                      terraformVersion: '1.9.5',
                      locked: true,
                    }),
                  ],
                },
              },
            },
          ],
        },
      },
    });
  });

  it("4. the organization's tags: none yet", async () => {
    assert.deepEqual(await send(context.server, organizationTags(acme)), {
      data: { organization: { edges: [{ node: { tag: { edges: [] } } }] } },
    });
  });

  it("5. the organization's projects: none yet", async () => {
    assert.deepEqual(await send(context.server, projects(acme)), {
      data: { organization: { edges: [{ node: { project: { edges: [] } } }] } },
    });
  });

  it("6. the organization's notification configurations: none yet, with data set (the UI fails on an answer without it)", async () => {
    assert.deepEqual(await send(context.server, notificationConfigurations(acme)), {
      data: { organization: { edges: [{ node: { notificationConfiguration: { edges: [] } } }] } },
    });
  });

  it("7. a workspace's team access: empty, then the grant its Add Team form made", async () => {
    const workspace = workspaces.dns ?? '';
    assert.deepEqual(await send(context.server, workspaceAccess(workspace)), {
      data: { workspace: { edges: [{ node: { access: { edges: [] } } }] } },
    });
    // The body of workspaceAccessService.ts createWorkspaceAccess, which the list reads back as sent.
    const sent = { name: 'deployers', role: 'custom', manageWorkspace: true, manageState: false, planJob: true, approveJob: false };
    const grant = await createRecord(context.server, `/api/v1/organization/${acme}/workspace/${workspace}/access`, 'access', sent);
    const node = { id: grant, ...sent };
    assert.deepEqual(await send(context.server, workspaceAccess(workspace)), {
      data: { workspace: { edges: [{ node: { access: { edges: [{ node }] } } }] } },
    });
  });

  it("8. a project's team access (its Teams tab and permission check): empty, then the grant its form made", async () => {
    const project = await createRecord(context.server, `/api/v1/organization/${acme}/project`, 'project', { name: 'networking' });
    assert.deepEqual(await send(context.server, projectAccess(project)), {
      data: { project: { edges: [{ node: { projectAccess: { edges: [] } } }] } },
    });
    const grant = await createRecord(context.server, `/api/v1/organization/${acme}/project/${project}/projectAccess`, 'project_access', {
      name: 'platform',
      role: 'admin',
    });
    const flags = { manageWorkspace: false, manageState: false, manageJob: false, planJob: false, approveJob: false };
    assert.deepEqual(await send(context.server, projectAccess(project)), {
      data: {
        project: { edges: [{ node: { projectAccess: { edges: [{ node: { id: grant, name: 'platform', role: 'admin', ...flags } }] } } }] },
      },
    });
  });
});
